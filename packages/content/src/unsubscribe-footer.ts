import { escapeHtml } from "./escape-html";
import { beforeBodyEnd } from "./inject-tracking";

/**
 * The compliance footer of a bulk email (campaigns, marketing batches): who sent it, the sender's postal address
 * (the project's setting; CAN-SPAM and the large mailbox providers ask for one) and the unsubscribe link, before
 * the document's `</body>` (or at the end) and at the end of the text part. Added after tracking, so the link is
 * not rewritten through the click endpoint.
 */
export function addUnsubscribeFooter(
  content: { html: string; text: string },
  opts: { url: string; sender: string; postalAddress?: string | null },
): { html: string; text: string } {
  const address = opts.postalAddress?.trim() || null;
  const footer =
    `<div style="margin-top:24px;font-size:12px;line-height:1.5;color:#6b7280;font-family:sans-serif">` +
    `You received this email from ${escapeHtml(opts.sender)}. ` +
    (address ? `${escapeHtml(address).replace(/\r?\n/g, "<br>")}<br>` : "") +
    `<a href="${escapeHtml(opts.url)}" style="color:#6b7280">Unsubscribe</a></div>`;
  const html = beforeBodyEnd(content.html, footer);
  const text =
    `${content.text.trimEnd()}\n\n--\nYou received this email from ${opts.sender}.\n` +
    (address ? `${address}\n` : "") +
    `Unsubscribe: ${opts.url}\n`;
  return { html, text };
}
