import { DeleteEmailIdentityCommand, type SESv2Client } from "@aws-sdk/client-sesv2";

/**
 * Removes an identity. Idempotent: an identity SES no longer knows counts as deleted, so a retried domain
 * deletion does not fail on its second run. Returns whether SES actually had it.
 */
export async function deleteIdentity(ses: SESv2Client, identity: string): Promise<{ deleted: boolean }> {
  try {
    await ses.send(new DeleteEmailIdentityCommand({ EmailIdentity: identity }));
    return { deleted: true };
  } catch (err) {
    if ((err as { name?: string }).name === "NotFoundException") return { deleted: false };
    throw err;
  }
}
