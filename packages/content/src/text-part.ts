import { compile } from "html-to-text";
import mime from "mime-types";

// Compiled once: `convert()` rebuilds its selector tables on every call, which cost more than the conversion.
const convert = compile({
  wordwrap: 78,
  selectors: [
    { selector: "img", format: "skip" },
    { selector: "style", format: "skip" },
    { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
  ],
});

/** Plain-text alternative generated from the HTML when the caller sent no text body. */
export function htmlToText(html: string): string {
  return convert(html);
}

/** MIME type from a filename's extension (attachments without `contentType`). */
export function contentTypeFromFilename(filename: string): string | null {
  return mime.lookup(filename) || null;
}
