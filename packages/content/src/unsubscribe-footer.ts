import { escapeHtml } from "./escape-html";
import { beforeBodyEnd } from "./inject-tracking";

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
  const html = beforeBodyEnd(content.html, footer);
  const text = `${content.text.trimEnd()}\n\n--\nYou received this email from ${opts.sender}.\nUnsubscribe: ${opts.url}\n`;
  return { html, text };
}
