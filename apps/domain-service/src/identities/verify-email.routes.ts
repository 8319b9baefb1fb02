import { Router } from "express";
import { AppError, ErrorCode } from "@emailsvc/contracts";
import { getAuth, methodNotAllowed } from "@emailsvc/http";
import { normalizeEmail } from "./domain/domain-name";
import { optionalString } from "./domain/optional-string";
import { checkEmailVerification } from "./check-email-verification";
import { deleteEmailIdentity } from "./delete-email-identity";
import type { DomainDeps } from "./domain-deps";
import { resendEmailVerification } from "./resend-email-verification";
import { startEmailVerification } from "./start-email-verification";
import type { SenderProfileRow } from "./email-identities.repo";

const profileView = (p: SenderProfileRow) => ({
  id: p.id,
  from_name: p.sender_name,
  from_email: p.sender_email,
  email_verified: p.email_verified,
  domain_authenticated: p.domain_authenticated,
});

/** The `email` query parameter, normalized; 400 when missing or not an address. */
const emailParam = (v: unknown) => {
  if (v === undefined || (typeof v === "string" && !v.trim()))
    throw new AppError(ErrorCode.VALIDATION, "email query parameter is required");
  const e = normalizeEmail(v);
  if (!e) throw new AppError(ErrorCode.VALIDATION, "email must be an email address");
  return e;
};

/**
 * Single-address verification (spec 4.10): the provider mails a verification link; the identity goes
 * pending → verified (or failed), read live from the provider on GET …/status.
 */
export function verifyEmailRouter(deps: Pick<DomainDeps, "db" | "provider">): Router {
  const r = Router();

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
    const { identity, profile } = await startEmailVerification(deps, projectId, {
      email,
      senderName: name,
      externalKey,
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
    const { identity, status, profile } = await checkEmailVerification(deps, projectId, email);
    res.json({
      success: true,
      identity_id: identity.id,
      sender_email: email,
      verification_status: status,
      sender_profile: profile ? profileView(profile) : null,
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
    await resendEmailVerification(deps, projectId, email);
    res.json({ success: true, message: `Verification email sent again to ${email}`, sender_email: email });
  });

  r.delete("/domains/verify-email", async (req, res) => {
    const { projectId } = getAuth(res);
    const email = emailParam(req.query.email);
    await deleteEmailIdentity(deps, projectId, email);
    res.json({ success: true, sender_email: email, message: `${email} and its sender profile were removed` });
  });

  // Mounted before the domains router, whose `/domains/:domain` paths would take these (and 404 them).
  r.all("/domains/verify-email", methodNotAllowed("POST", "DELETE"));
  r.all("/domains/verify-email/status", methodNotAllowed("GET"));
  r.all("/domains/verify-email/resend", methodNotAllowed("POST"));

  return r;
}
