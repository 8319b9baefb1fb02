import { splitRecipients } from "./recipients";

describe("splitRecipients", () => {
  it("gives each envelope recipient the role its header names, and Bcc to the rest", () => {
    expect(
      splitRecipients(["a@x.test", "B@x.test", "c@x.test"], { to: ["a@x.test"], cc: ["b@x.test"] }),
    ).toEqual({ to: ["a@x.test"], cc: ["B@x.test"], bcc: ["c@x.test"] });
  });

  it("never sends to a header address the envelope does not name, and drops envelope duplicates", () => {
    expect(splitRecipients(["a@x.test", "A@x.test"], { to: ["a@x.test", "other@x.test"], cc: [] })).toEqual({
      to: ["a@x.test"],
      cc: [],
      bcc: [],
    });
  });

  it("sends one email to each recipient of a Bcc-only message", () => {
    expect(splitRecipients(["a@x.test", "b@x.test"], { to: [], cc: ["b@x.test"] })).toEqual({
      to: ["b@x.test", "a@x.test"],
      cc: [],
      bcc: [],
    });
  });
});
