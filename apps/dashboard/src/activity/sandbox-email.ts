/**
 * The HTML of a sent email made safe to show in the dashboard, for an iframe with `sandbox=""` (no scripts, no
 * same-origin, no popups, no forms). Until the user asks, nothing remote loads: a Content-Security-Policy meta tag
 * allows only images and fonts inlined as data: URLs (so tracking pixels, remote images and CSS backgrounds are not
 * fetched, and the recipient's open is not counted by the operator looking at it), no stylesheets from elsewhere,
 * no frames, media or objects. A CSP in the email itself can only narrow this (policies intersect). Links open
 * nowhere (`<base target="_blank">` in a sandbox without popups), so a click tracking link is not followed by accident.
 */
export function sandboxEmail(html: string, { allowRemote }: { allowRemote: boolean }): string {
  const remote = allowRemote ? " http: https:" : "";
  const csp =
    `default-src 'none'; img-src data:${remote}; style-src 'unsafe-inline'${remote}; font-src data:${remote}; ` +
    "form-action 'none'";
  const head = `<meta http-equiv="Content-Security-Policy" content="${csp}"><base target="_blank">`;
  // a refresh would navigate the frame to a remote page (a sandbox already forbids it: belt and braces)
  const body = html.replace(/<meta\b[^>]*http-equiv\s*=\s*["']?refresh[^>]*>/gi, "");
  const headTag = /<head(?:\s[^>]*)?>/i.exec(body);
  if (headTag)
    return (
      body.slice(0, headTag.index + headTag[0].length) + head + body.slice(headTag.index + headTag[0].length)
    );
  const doctype = /^\s*<!doctype[^>]*>/i.exec(body);
  if (doctype) return doctype[0] + head + body.slice(doctype[0].length);
  return head + body;
}

/** How many remote resources (images, backgrounds, stylesheets, fonts) the HTML would load: what the button unblocks. */
export function countRemoteResources(html: string): number {
  const attrs =
    html.match(/\b(?:src|background|poster|srcset|href)\s*=\s*["']?\s*(?:https?:)?\/\/[^\s"'>]+/gi) ?? [];
  const links = attrs.filter((a) => !/^href/i.test(a)).length;
  const sheets = html.match(/<link\b[^>]*\bhref\s*=\s*["']?\s*(?:https?:)?\/\//gi)?.length ?? 0;
  const urls = html.match(/url\(\s*["']?\s*(?:https?:)?\/\//gi)?.length ?? 0;
  const imports = html.match(/@import\s+["']\s*(?:https?:)?\/\//gi)?.length ?? 0;
  return links + sheets + urls + imports;
}
