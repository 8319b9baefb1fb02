import { createHash, randomBytes } from "node:crypto";

/** A link's token (256 random bits) and the hash the row keeps: the token itself is stored nowhere. */
export function newInvitationToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashInvitationToken(token) };
}

export const hashInvitationToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** `<base>/invite/<token>`: the dashboard's page that shows the invitation and accepts it. */
export const invitationUrl = (base: string, token: string) => `${base.replace(/\/+$/, "")}/invite/${token}`;
