import { Router } from "express";
import { withTransaction, type Db } from "@emailsvc/db";
import { AppError, ErrorCode, getAuth, methodNotAllowed } from "@emailsvc/http";
import { normalizeEmail } from "../domain/domain-name";
import { optionalString } from "../domain/optional-string";
import { isProviderNotFound, type IdentityProvider } from "../use-cases/provider-port";

interface IdentityRow {
  id: string;
  sender_email: string;
  verification_status: string;
  sender_profile_id: string | null;
}
interface ProfileRow {
  id: string;
  sender_name: string;
  sender_email: string;
  email_verified: boolean;
  domain_authenticated: boolean;
}

const profileView = (p: ProfileRow) => ({
  id: p.id,
  from_name: p.sender_name,
  from_email: p.sender_email,
  email_verified: p.email_verified,
  domain_authenticated: p.domain_authenticated,
});

async function findIdentity(
  db: Db,
  projectId: string,
  email: string,
): Promise<{ identity: IdentityRow; profile: ProfileRow | null }> {
  const r = await db.pool.query<IdentityRow>(
    "SELECT * FROM email_identities WHERE project_id = $1 AND sender_email = $2",
    [projectId, email],
  );
  const identity = r.rows[0];
  if (!identity) throw new AppError(ErrorCode.NOT_FOUND, `${email} is not registered in this project`);
  const p = await db.pool.query<ProfileRow>(
    "SELECT * FROM sender_profiles WHERE project_id = $1 AND sender_email = $2",
    [projectId, email],
  );
  return { identity, profile: p.rows[0] ?? null };
}

/** What the provider says of the address, stored on its identity and its sender profile together. */
async function storeStatus(
  db: Db,
  projectId: string,
  email: string,
  status: "verified" | "failed" | "pending",
): Promise<ProfileRow | null> {
  return withTransaction(db.pool, async (c) => {
    await c.query(
      "UPDATE email_identities SET verification_status = $3, updated_at = now() WHERE project_id = $1 AND sender_email = $2",
      [projectId, email, status],
    );
    const p = await c.query<ProfileRow>(
      "UPDATE sender_profiles SET email_verified = $3, updated_at = now() WHERE project_id = $1 AND sender_email = $2 RETURNING *",
      [projectId, email, status === "verified"],
    );
    return p.rows[0] ?? null;
  });
}

/**
 * Single-address verification (spec 4.10): the provider mails a verification link; the identity goes
 * pending → verified (or failed), read live from the provider on GET …/status.
 */
export function verifyEmailRouter(deps: { db: Db; provider: IdentityProvider }): Router {
  const { db, provider } = deps;
  const r = Router();
  const emailParam = (v: unknown) => {
    if (v === undefined || (typeof v === "string" && !v.trim()))
      throw new AppError(ErrorCode.VALIDATION, "email query parameter is required");
    const e = normalizeEmail(v);
    if (!e) throw new AppError(ErrorCode.VALIDATION, "email must be an email address");
    return e;
  };

  r.post("/domains/verify-email", async (req, res) => {
    const { projectId } = getAuth(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const given = typeof body.sender_email === "string" ? body.sender_email.trim() : "";
    const name = typeof body.sender_name === "string" ? body.sender_name.trim() : "";
    if (!given || !name)
      throw new AppError(ErrorCode.VALIDATION, "sender_email and sender_name are required");
    const email = normalizeEmail(given);
    if (!email) throw new AppError(ErrorCode.VALIDATION, "sender_email must be an email address");
    const externalKey = optionalString(body.external_key, "external_key");
    // The provider's identity is one per account: an address another project registered is theirs (reusing it
    // would hand this project their verification, and deleting it here would break it there).
    const owners = await db.pool.query<{ project_id: string }>(
      "SELECT project_id FROM email_identities WHERE sender_email = $1",
      [email],
    );
    if (owners.rows.some((o) => o.project_id === projectId))
      throw new AppError(ErrorCode.CONFLICT, `${email} is already registered in this project`);
    if (owners.rowCount)
      throw new AppError(ErrorCode.CONFLICT, `${email} is already registered by another project`);
    try {
      await provider.createEmail(email);
    } catch (err) {
      throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to start verification with the email provider", {
        cause: err,
      });
    }
    const { identity, profile } = await withTransaction(db.pool, async (c) => {
      // Two projects registering one address at once both pass the check above: serialize them and check again.
      await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`email:${email}`]);
      const taken = await c.query(
        "SELECT 1 FROM email_identities WHERE sender_email = $1 AND project_id <> $2",
        [email, projectId],
      );
      if (taken.rowCount)
        throw new AppError(ErrorCode.CONFLICT, `${email} is already registered by another project`);
      const p = await c.query<ProfileRow>(
        `INSERT INTO sender_profiles (id, project_id, sender_name, sender_email, email_verified, external_key, active, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, false, $4, true, now())
         ON CONFLICT (project_id, sender_email) DO UPDATE SET sender_name = $2, active = true, updated_at = now() RETURNING *`,
        [projectId, name, email, externalKey],
      );
      const i = await c.query<IdentityRow>(
        `INSERT INTO email_identities (id, project_id, sender_email, verification_status, sender_profile_id, updated_at)
         VALUES (gen_random_uuid(), $1, $2, 'pending', $3, now()) RETURNING *`,
        [projectId, email, p.rows[0]!.id],
      );
      return { identity: i.rows[0]!, profile: p.rows[0]! };
    });
    const v = profileView(profile);
    res.status(201).json({
      success: true,
      identity_id: identity.id,
      sender_email: email,
      verification_status: "pending",
      sender_profile_id: profile.id,
      sender: {
        from_name: v.from_name,
        from_email: v.from_email,
        email_verified: v.email_verified,
        domain_authenticated: v.domain_authenticated,
      },
      message: `A verification email was sent to ${email}. Follow its link, then check GET /domains/verify-email/status?email=${encodeURIComponent(email)}.`,
    });
  });

  r.get("/domains/verify-email/status", async (req, res) => {
    const { projectId } = getAuth(res);
    const email = emailParam(req.query.email);
    const { identity, profile } = await findIdentity(db, projectId, email);
    let live: Awaited<ReturnType<IdentityProvider["get"]>>;
    try {
      live = await provider.get(email);
    } catch (err) {
      throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to check the address with the email provider", {
        cause: err,
      });
    }
    const status =
      live.verificationStatus === "SUCCESS"
        ? "verified"
        : live.verificationStatus === "FAILED"
          ? "failed"
          : "pending";
    const updated = (await storeStatus(db, projectId, email, status)) ?? profile;
    res.json({
      success: true,
      identity_id: identity.id,
      sender_email: email,
      verification_status: status,
      sender_profile: updated ? profileView(updated) : null,
      can_send: status === "verified",
    });
  });

  r.post("/domains/verify-email/resend", async (req, res) => {
    const { projectId } = getAuth(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.sender_email !== "string" || !body.sender_email.trim())
      throw new AppError(ErrorCode.VALIDATION, "sender_email is required");
    const email = normalizeEmail(body.sender_email);
    if (!email) throw new AppError(ErrorCode.VALIDATION, "sender_email must be an email address");
    await findIdentity(db, projectId, email);
    try {
      // Resending recreates the provider's identity, which would undo a verification: a verified address is
      // left alone (spec 3: resend is a step of `pending`).
      const live = await provider.get(email).catch((err: unknown) => {
        if (isProviderNotFound(err)) return null;
        throw err;
      });
      if (live?.verificationStatus === "SUCCESS") {
        await storeStatus(db, projectId, email, "verified");
        throw new AppError(ErrorCode.CONFLICT, `${email} is already verified; no email was sent`);
      }
      // SES sends the verification mail when the identity is created: recreate it to send it again.
      if (live) await provider.delete(email);
      await provider.createEmail(email);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to resend the verification email", { cause: err });
    }
    await db.pool.query(
      "UPDATE email_identities SET verification_status = 'pending', updated_at = now() WHERE project_id = $1 AND sender_email = $2",
      [projectId, email],
    );
    res.json({ success: true, message: `Verification email sent again to ${email}`, sender_email: email });
  });

  r.delete("/domains/verify-email", async (req, res) => {
    const { projectId } = getAuth(res);
    const email = emailParam(req.query.email);
    await findIdentity(db, projectId, email);
    try {
      await provider.delete(email);
    } catch (err) {
      throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to remove the address at the email provider", {
        cause: err,
      });
    }
    await withTransaction(db.pool, async (c) => {
      await c.query("DELETE FROM email_identities WHERE project_id = $1 AND sender_email = $2", [
        projectId,
        email,
      ]);
      await c.query(
        "DELETE FROM sender_profiles WHERE project_id = $1 AND sender_email = $2 AND domain_id IS NULL",
        [projectId, email],
      );
      await c.query(
        "UPDATE sender_profiles SET email_verified = false, updated_at = now() WHERE project_id = $1 AND sender_email = $2",
        [projectId, email],
      );
    });
    res.json({ success: true, sender_email: email, message: `${email} and its sender profile were removed` });
  });

  // Mounted before the domains router, whose `/domains/:domain` paths would take these (and 404 them).
  r.all("/domains/verify-email", methodNotAllowed("POST", "DELETE"));
  r.all("/domains/verify-email/status", methodNotAllowed("GET"));
  r.all("/domains/verify-email/resend", methodNotAllowed("POST"));

  return r;
}
