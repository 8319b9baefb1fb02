-- An invitation can be revoked (issue 45); a resend replaces its token_hash, so the old link dies either way.
ALTER TABLE "invitations" ADD COLUMN "revoked_at" TIMESTAMPTZ(3);
