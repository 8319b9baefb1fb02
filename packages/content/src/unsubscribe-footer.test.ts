import { addUnsubscribeFooter } from "./unsubscribe-footer";
import { unsubscribeUrl, verifyUnsubscribe } from "./tracking-signature";

const ID = "3f0c6a3e-2b8e-4f4a-9a57-0c3c1b2d4e5f";

describe("unsubscribe link and footer", () => {
  it("signs the link per activity; another id or secret does not verify", () => {
    const url = unsubscribeUrl("https://mail.example.com/", "s3cret", ID);
    const sig = new URL(url).searchParams.get("sig")!;
    expect(url).toBe(`https://mail.example.com/t/u/${ID}?sig=${sig}`);
    expect(verifyUnsubscribe("s3cret", ID, sig)).toBe(true);
    expect(verifyUnsubscribe("other", ID, sig)).toBe(false);
    expect(verifyUnsubscribe("s3cret", ID.replace("3f", "4f"), sig)).toBe(false);
    expect(verifyUnsubscribe("s3cret", ID, undefined)).toBe(false);
  });

  it("puts the footer before the document's </body> (not one in a comment) and at the end of the text", () => {
    const out = addUnsubscribeFooter(
      { html: "<html><body><p>Hi</p><!-- </body> --></body></html>", text: "Hi\n\n" },
      { url: "https://x.example/t/u/1?sig=a&b", sender: 'Shop <"news">' },
    );
    expect(out.html).toMatch(
      /<!-- <\/body> --><div [^>]*>You received this email from Shop &lt;&quot;news&quot;&gt;\. <a href="https:\/\/x\.example\/t\/u\/1\?sig=a&amp;b"[^>]*>Unsubscribe<\/a><\/div><\/body><\/html>$/,
    );
    expect(out.text).toBe(
      'Hi\n\n--\nYou received this email from Shop <"news">.\nUnsubscribe: https://x.example/t/u/1?sig=a&b\n',
    );
    expect(addUnsubscribeFooter({ html: "<p>x</p>", text: "x" }, { url: "u", sender: "s" }).html).toMatch(
      /^<p>x<\/p><div /,
    );
  });

  it("prints the project's postal address between the sender and the link, in both parts", () => {
    const out = addUnsubscribeFooter(
      { html: "<body><p>Hi</p></body>", text: "Hi" },
      { url: "https://x.example/u", sender: "Shop", postalAddress: "1 Main St\nSpringfield <IL>" },
    );
    expect(out.html).toContain(
      'You received this email from Shop. 1 Main St<br>Springfield &lt;IL&gt;<br><a href="https://x.example/u"',
    );
    expect(out.text).toBe(
      "Hi\n\n--\nYou received this email from Shop.\n1 Main St\nSpringfield <IL>\nUnsubscribe: https://x.example/u\n",
    );
  });
});
