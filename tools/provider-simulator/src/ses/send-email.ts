import { z } from "zod";
import type { SimContext } from "../context";
import { bareAddress } from "../context";
import { buildMime } from "../mime/build-mime";
import { parseMessage } from "../mime/parse-message";
import type { SimMessage } from "../state/types";
import { sesMessageIdDomain } from "@emailsvc/provider";
import { sesMessageId } from "./ids";
import { badRequest, SesError } from "./ses-errors";

const content = z.object({ Data: z.string(), Charset: z.string().optional() });

const sendEmailBody = z.object({
  FromEmailAddress: z.string().optional(),
  Destination: z
    .object({
      ToAddresses: z.array(z.string()).optional(),
      CcAddresses: z.array(z.string()).optional(),
      BccAddresses: z.array(z.string()).optional(),
    })
    .optional(),
  ReplyToAddresses: z.array(z.string()).optional(),
  Content: z.object({
    Simple: z
      .object({
        Subject: content,
        Body: z.object({ Text: content.optional(), Html: content.optional() }),
        Headers: z.array(z.object({ Name: z.string(), Value: z.string() })).optional(),
      })
      .optional(),
    Raw: z.object({ Data: z.string() }).optional(),
    Template: z.unknown().optional(),
  }),
  EmailTags: z.array(z.object({ Name: z.string(), Value: z.string() })).optional(),
  ConfigurationSetName: z.string().optional(),
});

/** Applies a scripted fault (POST /_sim/config { fault }) if one is armed for this operation. */
export function takeFault(ctx: SimContext, operation: string): SesError | null {
  const f = ctx.state.config.fault;
  if (!f || (f.operation !== "any" && f.operation !== operation)) return null;
  f.count--;
  if (f.count <= 0) ctx.state.config.fault = null;
  return new SesError(f.status, f.errorType, f.message);
}

export async function sendEmail(ctx: SimContext, body: unknown): Promise<{ MessageId: string }> {
  const fault = takeFault(ctx, "SendEmail");
  if (fault) throw fault;
  // Before any parsing: throttling must stay cheap under benchmark load, and throttled calls are not recorded.
  // The arrival time is both what the rate is checked against and the message's receivedAtMs, so a benchmark
  // that counts sends per second from receivedAtMs sees exactly what the throttle saw (not arrival + parse time).
  const arrivedAt = Date.now();
  if (!ctx.state.sendRate.tryAccept(ctx.state.config.maxSendRate, arrivedAt)) {
    throw new SesError(429, "TooManyRequestsException", "Maximum sending rate exceeded.");
  }
  const parsedBody = sendEmailBody.safeParse(body);
  if (!parsedBody.success)
    throw badRequest(`Invalid SendEmail request: ${parsedBody.error.issues[0]?.message}`);
  const input = parsedBody.data;
  const dest = input.Destination;

  let raw: string;
  if (input.Content.Raw) {
    raw = Buffer.from(input.Content.Raw.Data, "base64").toString("utf8");
  } else if (input.Content.Simple) {
    const s = input.Content.Simple;
    if (!input.FromEmailAddress) throw badRequest("FromEmailAddress is required for Simple content.");
    raw = await buildMime({
      from: input.FromEmailAddress,
      to: dest?.ToAddresses ?? [],
      cc: dest?.CcAddresses ?? [],
      replyTo: input.ReplyToAddresses ?? [],
      subject: s.Subject.Data,
      ...(s.Body.Text ? { text: s.Body.Text.Data } : {}),
      ...(s.Body.Html ? { html: s.Body.Html.Data } : {}),
      ...(s.Headers ? { headers: Object.fromEntries(s.Headers.map((h) => [h.Name, h.Value])) } : {}),
    });
  } else if (input.Content.Template) {
    throw badRequest("Template content is not supported by the provider simulator.");
  } else {
    throw badRequest("Content must contain Simple or Raw.");
  }

  const headers = await parseMessage(raw);
  const fromHeader = input.FromEmailAddress ?? headers.from;
  if (!fromHeader) throw badRequest("Missing FromEmailAddress and no From header in the message.");
  const from = bareAddress(fromHeader);
  // SES takes the envelope from Destination when given, otherwise from the Raw message's headers.
  const to = dest ? (dest.ToAddresses ?? []).map(bareAddress) : headers.to;
  const cc = dest ? (dest.CcAddresses ?? []).map(bareAddress) : headers.cc;
  const bcc = dest ? (dest.BccAddresses ?? []).map(bareAddress) : headers.bcc;
  const destination = [...to, ...cc, ...bcc];
  if (destination.length === 0)
    throw new SesError(400, "MessageRejected", "Email address is not specified: no recipients.");
  if (destination.length > 50) throw new SesError(400, "MessageRejected", "Recipient count exceeds 50.");
  if (ctx.state.config.enforceVerifiedSenders && !ctx.state.isSenderVerified(from)) {
    throw new SesError(
      400,
      "MessageRejected",
      `Email address is not verified. The following identities failed the check in region ${ctx.region.toUpperCase()}: ${from}`,
    );
  }

  const now = arrivedAt;
  const id = sesMessageId(now);
  const message: SimMessage = {
    id,
    kind: "email",
    timestamp: new Date(now).toISOString(),
    receivedAtMs: now,
    from,
    to,
    cc,
    bcc,
    destination,
    subject: headers.subject,
    ...(headers.messageId ? { headerMessageId: headers.messageId } : {}),
    deliveredMessageId: `<${id}@${sesMessageIdDomain(ctx.region)}>`,
    headers: headers.headers,
    raw,
    ...(input.ConfigurationSetName ? { configurationSet: input.ConfigurationSetName } : {}),
    tags: Object.fromEntries((input.EmailTags ?? []).map((t) => [t.Name, t.Value])),
  };
  ctx.state.addMessage(message);
  ctx.notifier.publishSesEvents(message);
  return { MessageId: message.id };
}
