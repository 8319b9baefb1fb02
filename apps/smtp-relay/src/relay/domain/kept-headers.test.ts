import { keptHeaders } from "./kept-headers";

describe("keptHeaders", () => {
  it("keeps threading and unsubscribe headers, unfolded, and nothing else", () => {
    expect(
      keptHeaders([
        { key: "in-reply-to", line: "In-Reply-To: <a@x.test>" },
        { key: "references", line: "References: <a@x.test>\r\n <b@x.test>" },
        { key: "list-unsubscribe", line: "List-Unsubscribe: <https://x.test/u>" },
        { key: "reply-to", line: "Reply-To: someone@x.test" },
        { key: "message-id", line: "Message-ID: <m@x.test>" },
      ]),
    ).toEqual({
      "In-Reply-To": "<a@x.test>",
      References: "<a@x.test> <b@x.test>",
      "List-Unsubscribe": "<https://x.test/u>",
    });
  });

  it("is null when the client set none", () => {
    expect(keptHeaders([{ key: "subject", line: "Subject: hi" }])).toBeNull();
  });
});
