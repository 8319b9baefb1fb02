import { escapeHtml } from "./escape-html";

/** Comments blanked out (same length), so a `</body>` inside one is not taken for the document's. */
const withoutComments = (html: string): string =>
  html.replace(/<!--[\s\S]*?(?:-->|$)/g, (c) => " ".repeat(c.length));

/**
 * The compliance footer of a bulk email: who sent it and the unsubscribe link, before the document's
 * `</body>` (or at the end) and at the end of the text part. Added after tracking, so the link is not rewritten
 * through the click endpoint.
 */
export function addUnsubscribeFooter(
  content: { html: string; text: string },
  opts: { url: string; sender: string },
): { html: string; text: string } {
  const footer =
    `<div style="margin-top:24px;font-size:12px;line-height:1.5;color:#6b7280;font-family:sans-serif">` +
    `You received this email from ${escapeHtml(opts.sender)}. ` +
    `<a href="${escapeHtml(opts.url)}" style="color:#6b7280">Unsubscribe</a></div>`;
  const bodyEnd = withoutComments(content.html).search(/<\/body\s*>/i);
  const html =
    bodyEnd >= 0
      ? `${content.html.slice(0, bodyEnd)}${footer}${content.html.slice(bodyEnd)}`
      : `${content.html}${footer}`;
  const text = `${content.text.replace(/\s+$/, "")}\n\n--\nYou received this email from ${opts.sender}.\nUnsubscribe: ${opts.url}\n`;
  return { html, text };
}
