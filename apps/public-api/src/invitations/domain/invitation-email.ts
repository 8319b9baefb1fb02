import { escapeHtml } from "@emailsvc/content";

// The invitation email's content: pure, so its words and escaping are tested without a database.

export interface InvitationEmailInput {
  projectName: string;
  role: string;
  /** who invited, as the invitee knows them; null for the admin token (automation) */
  inviter: { name: string | null; email: string } | null;
  url: string;
  expiresAt: Date;
}

/** `Ada Lovelace (ada@example.com)`, or the address alone. */
const who = (i: { name: string | null; email: string }) => (i.name ? `${i.name} (${i.email})` : i.email);

export function invitationEmail(input: InvitationEmailInput): {
  subject: string;
  html: string;
  text: string;
} {
  const by = input.inviter ? who(input.inviter) : "An administrator";
  // the subject is a header: no line breaks from a project's name
  const project = input.projectName.replace(/[\r\n]+/g, " ").trim();
  const expires = `${input.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const subject =
    `${input.inviter?.name ?? input.inviter?.email ?? "You are"} invited you to ${project}`.replace(
      /^You are invited you/,
      "You are invited",
    );
  const text = [
    `${by} invited you to the project ${project} as ${input.role}.`,
    "",
    `Accept the invitation: ${input.url}`,
    "",
    `The link works until ${expires}, once. If you did not expect this email, ignore it.`,
  ].join("\n");
  const html = `<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">
<p>${escapeHtml(by)} invited you to the project <strong>${escapeHtml(project)}</strong> as ${escapeHtml(input.role)}.</p>
<p><a href="${escapeHtml(input.url)}">Accept the invitation</a></p>
<p style="color: #555">Or open this link: ${escapeHtml(input.url)}<br>It works until ${escapeHtml(expires)}, once. If you did not expect this email, ignore it.</p>
</body></html>`;
  return { subject, html, text };
}
