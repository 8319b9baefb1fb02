import { invitationEmail } from "./invitation-email";

const base = {
  projectName: "Shop <b>",
  role: "viewer",
  url: "https://dash.example.com/dashboard/invite/abc_DEF-123",
  expiresAt: new Date("2026-12-02T10:30:00Z"),
};

describe("invitationEmail", () => {
  it("says who invited whom to what, with the link and its expiry, escaped in the HTML", () => {
    const e = invitationEmail({ ...base, inviter: { name: "Ada", email: "ada@example.com" } });
    expect(e.subject).toBe("Ada invited you to Shop <b>");
    expect(e.text).toContain("Ada (ada@example.com) invited you to the project Shop <b> as viewer.");
    expect(e.text).toContain(`Accept the invitation: ${base.url}`);
    expect(e.text).toContain("2026-12-02 10:30 UTC");
    expect(e.html).toContain("<strong>Shop &lt;b&gt;</strong>");
    expect(e.html).toContain(`<a href="${base.url}">`);
  });

  it("names the admin token's invitations without a person, and keeps the subject on one line", () => {
    const e = invitationEmail({ ...base, projectName: "A\r\nBcc: x@evil.example", inviter: null });
    expect(e.subject).toBe("You are invited to A Bcc: x@evil.example");
    expect(e.text.startsWith("An administrator invited you")).toBe(true);
  });
});
