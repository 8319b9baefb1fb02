// email-reply-parser 2.x is an ES module whose default export is the class (TOOLCHAIN.md); Node 20.20 loads it
// with require(). Its optional re2 dependency is not installed: it falls back to RegExp.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loaded = require("email-reply-parser") as {
  default: new () => { parseReply(text: string): string };
};
const EmailReplyParser = loaded.default;

/** The new text of a reply: quoted history and signature removed. */
export function replyText(text: string): string {
  if (!text.trim()) return "";
  return new EmailReplyParser().parseReply(text).trim();
}
