import { decodeHTMLAttribute } from "entities";
import { clickUrl, openPixelUrl } from "./tracking-signature";

export interface TrackingOptions {
  activityId: string;
  baseUrl: string;
  secret: string;
  /** Click tracking can be switched off per send; the open pixel is always added when tracking is on. */
  clicks?: boolean;
}

/**
 * An `<a>` tag's `href` attribute (not `data-href`: the name follows whitespace), double-quoted, single-quoted
 * (each may contain the other quote) or unquoted. Whether it holds an absolute http(s) URL is decided on the
 * value, trimmed as a browser trims it: in the pattern, optional spaces around a lazy URL made a run of spaces
 * inside the quotes cost quadratic time.
 */
const ANCHOR_HREF = /(<a\b[^>]*?\shref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'<>`]+))/gi;
const HTTP_URL = /^https?:\/\//i;

/** Comments blanked out (same length), so a `</body>` inside one is not taken for the document's. */
const withoutComments = (html: string): string =>
  html.replace(/<!--[\s\S]*?(?:-->|$)/g, (c) => " ".repeat(c.length));

/** `html` with `insert` before the document's `</body>` (not one inside a comment), or at the end. */
export function beforeBodyEnd(html: string, insert: string): string {
  const bodyEnd = withoutComments(html).search(/<\/body\s*>/i);
  return bodyEnd >= 0 ? `${html.slice(0, bodyEnd)}${insert}${html.slice(bodyEnd)}` : `${html}${insert}`;
}

const encodeAttr = (v: string) => v.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

/**
 * Rewrites every absolute http(s) link through the signed click endpoint and adds the 1×1 open pixel before
 * `</body>` (the document's, not one inside a comment; or at the end). mailto:, tel:, anchors and relative links
 * are left alone.
 */
export function injectTracking(html: string, opts: TrackingOptions): string {
  const withLinks =
    opts.clicks === false
      ? html
      : html.replace(ANCHOR_HREF, (m: string, head: string, dq?: string, sq?: string, bare?: string) => {
          const url = (dq ?? sq ?? bare)!.trim();
          if (!HTTP_URL.test(url)) return m;
          // The URL a browser would follow: the attribute's character references decoded as HTML does it
          // (`&amp;`, `&#38;`, `&#x26;`, `&quot;`…; `&copy=` in a query stays as written).
          const tracked = clickUrl(opts.baseUrl, opts.secret, opts.activityId, decodeHTMLAttribute(url));
          return `${head}"${encodeAttr(tracked)}"`;
        });
  const pixel = `<img src="${openPixelUrl(opts.baseUrl, opts.activityId)}" width="1" height="1" alt="" style="display:none;border:0;width:1px;height:1px" />`;
  return beforeBodyEnd(withLinks, pixel);
}
