import { sesMessageIdDomain } from "@emailsvc/provider";
import { z } from "zod";
import type { SimContext } from "../context";
import { buildMime } from "../mime/build-mime";
import type { SimIdentity } from "../state/types";
import { dkimToken, sesMessageId } from "./ids";
import { badRequest, notFound, SesError } from "./ses-errors";

const createBody = z.object({
  EmailIdentity: z.string().min(1),
  Tags: z.array(z.object({ Key: z.string(), Value: z.string() })).optional(),
  DkimSigningAttributes: z
    .object({ NextSigningKeyLength: z.enum(["RSA_1024_BIT", "RSA_2048_BIT"]).optional() })
    .passthrough()
    .optional(),
  ConfigurationSetName: z.string().optional(),
});

const mailFromBody = z.object({
  MailFromDomain: z.string().optional(),
  BehaviorOnMxFailure: z.enum(["USE_DEFAULT_VALUE", "REJECT_MESSAGE"]).optional(),
});

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

function dkimAttributes(id: SimIdentity) {
  if (id.type === "EMAIL_ADDRESS") return { SigningEnabled: false, Status: "NOT_STARTED", Tokens: [] };
  return {
    SigningEnabled: true,
    Status: id.dkimStatus,
    Tokens: id.dkimTokens,
    SigningAttributesOrigin: "AWS_SES",
    NextSigningKeyLength: "RSA_2048_BIT",
    CurrentSigningKeyLength: "RSA_2048_BIT",
    LastKeyGenerationTimestamp: Math.floor(Date.parse(id.createdAt) / 1000),
  };
}

export async function createEmailIdentity(ctx: SimContext, body: unknown) {
  const parsed = createBody.safeParse(body);
  if (!parsed.success)
    throw badRequest(`Invalid CreateEmailIdentity request: ${parsed.error.issues[0]?.message}`);
  const name = parsed.data.EmailIdentity.trim();
  const isEmail = name.includes("@");
  if (isEmail ? !EMAIL.test(name) : !DOMAIN.test(name)) throw badRequest(`Invalid email identity: ${name}`);
  if (ctx.state.getIdentity(name))
    throw new SesError(400, "AlreadyExistsException", `Email identity ${name} already exist.`);

  const id: SimIdentity = {
    identity: name,
    type: isEmail ? "EMAIL_ADDRESS" : "DOMAIN",
    verificationStatus: "PENDING",
    dkimStatus: isEmail ? "NOT_STARTED" : "PENDING",
    dkimTokens: isEmail ? [] : [dkimToken(), dkimToken(), dkimToken()],
    behaviorOnMxFailure: "USE_DEFAULT_VALUE",
    tags: parsed.data.Tags ?? [],
    ...(parsed.data.ConfigurationSetName ? { configurationSetName: parsed.data.ConfigurationSetName } : {}),
    createdAt: new Date().toISOString(),
  };
  ctx.state.identities.set(name.toLowerCase(), id);
  if (isEmail) await recordVerificationMail(ctx, name);
  return {
    IdentityType: id.type,
    VerifiedForSendingStatus: false,
    DkimAttributes: dkimAttributes(id),
  };
}

/** SES mails the address a link; the simulator records that mail in the received list instead of sending it. */
async function recordVerificationMail(ctx: SimContext, address: string): Promise<void> {
  const link = `${ctx.publicUrl()}/_sim/identities/${encodeURIComponent(address)}/verify`;
  const subject = `Amazon Web Services – Email Address Verification Request in region ${ctx.region}`;
  const from = "no-reply-aws@amazon.com";
  const raw = await buildMime({
    from,
    to: [address],
    subject,
    text: `Dear Amazon Web Services Customer,\n\nWe have received a request to authorize this email address for use with Amazon SES.\nTo confirm that you are authorized to use this email address, go to the following URL:\n\n${link}\n\n(provider simulator: GET or POST that URL to mark the address verified)\n`,
  });
  const now = Date.now();
  const id = sesMessageId(now);
  ctx.state.addMessage({
    id,
    deliveredMessageId: `<${id}@${sesMessageIdDomain(ctx.region)}>`,
    kind: "verification",
    timestamp: new Date(now).toISOString(),
    receivedAtMs: now,
    from,
    to: [address],
    cc: [],
    bcc: [],
    destination: [address],
    subject,
    headers: [],
    raw,
    tags: {},
  });
}

export function getEmailIdentity(ctx: SimContext, name: string) {
  const id = ctx.state.getIdentity(name);
  if (!id) throw notFound(`Email identity ${name} does not exist.`);
  return {
    IdentityType: id.type,
    FeedbackForwardingStatus: true,
    VerifiedForSendingStatus: id.verificationStatus === "SUCCESS",
    VerificationStatus: id.verificationStatus,
    DkimAttributes: dkimAttributes(id),
    MailFromAttributes: {
      BehaviorOnMxFailure: id.behaviorOnMxFailure,
      ...(id.mailFromDomain
        ? { MailFromDomain: id.mailFromDomain, MailFromDomainStatus: id.mailFromStatus }
        : {}),
    },
    Policies: {},
    Tags: id.tags,
    ...(id.configurationSetName ? { ConfigurationSetName: id.configurationSetName } : {}),
  };
}

export function deleteEmailIdentity(ctx: SimContext, name: string) {
  if (!ctx.state.identities.delete(name.toLowerCase()))
    throw notFound(`Email identity ${name} does not exist.`);
  return {};
}

export function putMailFromAttributes(ctx: SimContext, name: string, body: unknown) {
  const id = ctx.state.getIdentity(name);
  if (!id) throw notFound(`Email identity ${name} does not exist.`);
  const parsed = mailFromBody.safeParse(body ?? {});
  if (!parsed.success) throw badRequest(`Invalid request: ${parsed.error.issues[0]?.message}`);
  const domain = parsed.data.MailFromDomain?.trim().toLowerCase();
  if (parsed.data.BehaviorOnMxFailure) id.behaviorOnMxFailure = parsed.data.BehaviorOnMxFailure;
  if (!domain) {
    delete id.mailFromDomain;
    delete id.mailFromStatus;
    return {};
  }
  const parent =
    id.type === "DOMAIN" ? id.identity.toLowerCase() : (id.identity.split("@")[1] ?? "").toLowerCase();
  if (!domain.endsWith(`.${parent}`) || !DOMAIN.test(domain)) {
    throw badRequest(`Invalid MAIL FROM domain ${domain}: it must be a subdomain of ${parent}.`);
  }
  id.mailFromDomain = domain;
  // SES checks the MX record asynchronously; the control API's verify/fail settles it.
  id.mailFromStatus = "PENDING";
  return {};
}

export function getAccount(ctx: SimContext) {
  const rate = ctx.state.config.maxSendRate;
  return {
    DedicatedIpAutoWarmupEnabled: false,
    EnforcementStatus: "HEALTHY",
    ProductionAccessEnabled: true,
    SendingEnabled: true,
    SendQuota: {
      Max24HourSend: ctx.state.config.max24HourSend,
      // Unlimited in the simulator is reported as a large quota so callers that pace by it do not stall.
      MaxSendRate: rate ?? 10_000,
      SentLast24Hours: ctx.state.sendRate.accepted,
    },
    SuppressionAttributes: { SuppressedReasons: ["BOUNCE", "COMPLAINT"] },
  };
}

/** Control API: settle an identity's verification (and its DKIM / MAIL FROM checks) as a DNS check would. */
export function settleIdentity(
  ctx: SimContext,
  name: string,
  outcome: "SUCCESS" | "FAILED",
): SimIdentity | null {
  const id = ctx.state.getIdentity(name);
  if (!id) return null;
  id.verificationStatus = outcome;
  if (id.type === "DOMAIN") id.dkimStatus = outcome;
  if (id.mailFromDomain) id.mailFromStatus = outcome;
  return id;
}
