import { parseReplyAddress, type ProjectId, projectIdOf } from "@emailsvc/contracts";
import type { ParsedReply } from "./domain/parse-mime";
import { sentSubject } from "./domain/sent-subject";
import { normalizeSubject } from "./domain/subject";
import type { OutboundSend, ResolveRepo } from "@emailsvc/db";

export type MatchedBy = "token" | "legacy" | "in_reply_to" | "references" | "subject";

export interface Resolution {
  /** null: unmatched (kept, never forwarded) */
  projectId: ProjectId | null;
  matchedBy: MatchedBy | null;
  /** the original send (every rule but a subject match on a thread without one) */
  send: OutboundSend | null;
  /** an existing thread the subject rule chose */
  threadId: string | null;
  /** our address that resolved it (token or legacy), for `recipient` and `to` */
  recipient: string | null;
  returnPathParsed: { project_id: ProjectId; activity_id: string } | null;
  /** a sender outside the thread's participants whose DMARC check failed */
  suspicious: boolean;
}

export interface ResolveInput {
  /** SES receipt.recipients, then the To and Cc addresses: where a token may be */
  recipients: string[];
  parsed: ParsedReply;
  normalizedSubject: string;
  dmarcFailed: boolean;
  inboundDomain: string;
  /** the subject rule's window (spec: 30 days) */
  subjectSince: Date;
}

const lower = (s: string) => s.trim().toLowerCase();

/**
 * The thread of a received email, by spec 4.9's rules in order, the first that matches winning:
 *  1. a reply token `r-<token>@{inbound_domain}` in the envelope recipients, To or Cc (case-insensitive);
 *  2. the legacy `reply+<projectId>-<activityId>@{inbound_domain}`, only when that activity is that project's;
 *  3. In-Reply-To matched to the Message-ID of a send;
 *  4. the References chain (the latest reference that is one of our sends);
 *  5. the normalised subject: a thread of one project only, active within the window, whose participants overlap
 *     the mail's addresses, and not for a suspicious sender (not a participant, DMARC failed); else, for the first
 *     reply to a send (its client dropped Reply-To and the threading headers), a send to the mail's sender within
 *     the window whose subject as sent normalises the same: the newest wins, only when every such send is in one
 *     project, and never for a sender whose DMARC check failed.
 * A token resolves only within the project that owns it: nothing about a token ever reaches another project.
 */
export async function resolveThread(repo: ResolveRepo, input: ResolveInput): Promise<Resolution> {
  const { parsed } = input;
  const addresses = [...input.recipients, ...parsed.to.map((a) => a.email), ...parsed.cc.map((a) => a.email)];
  const tokens: { token: string; address: string }[] = [];
  const legacy: { projectId: ProjectId; activityId: string; address: string }[] = [];
  for (const address of addresses) {
    const r = parseReplyAddress(address.trim(), input.inboundDomain);
    if (r?.form === "token" && !tokens.some((t) => t.token === r.token))
      tokens.push({ token: r.token, address: lower(address) });
    // A legacy address names its project; byLegacy finds a send only where that project and activity match.
    if (r?.form === "legacy")
      legacy.push({ ...r, projectId: projectIdOf(r.projectId), address: lower(address) });
  }
  const sender = parsed.from ? lower(parsed.from.email) : "";
  const base = { threadId: null, returnPathParsed: null };
  const suspiciousFor = (participants: string[]) => input.dmarcFailed && !participants.includes(sender);
  const outcome = (send: OutboundSend, matchedBy: MatchedBy, recipient: string | null): Resolution => ({
    ...base,
    projectId: send.projectId,
    matchedBy,
    send,
    recipient,
    suspicious: suspiciousFor([lower(send.recipient)]),
  });

  if (tokens.length) {
    const found = await repo.byTokens(tokens.map((t) => t.token));
    for (const t of tokens) {
      const send = found.get(t.token);
      if (send) return outcome(send, "token", t.address);
    }
  }
  for (const l of legacy) {
    const send = await repo.byLegacy(l.projectId, l.activityId);
    if (send)
      return {
        ...outcome(send, "legacy", l.address),
        returnPathParsed: { project_id: l.projectId, activity_id: l.activityId },
      };
  }
  const headerIds = [...parsed.inReplyToIds, ...parsed.referenceIds];
  if (headerIds.length) {
    const sends = await repo.byMessageIds(headerIds.slice(0, 100));
    const inReplyTo = parsed.inReplyToIds.map((id) => sends.get(id)).find(Boolean);
    if (inReplyTo) return outcome(inReplyTo, "in_reply_to", null);
    // the chain is oldest first: the latest of our sends in it is the one answered
    for (const id of [...parsed.referenceIds].reverse()) {
      const send = sends.get(id);
      if (send) return outcome(send, "references", null);
    }
  }
  if (input.normalizedSubject) {
    const ours = (a: string) => lower(a).endsWith(`@${input.inboundDomain.toLowerCase()}`);
    const mailAddresses = [...new Set([sender, ...addresses.map(lower)])].filter((a) => a && !ours(a));
    const threads = await repo.threadsBySubject(input.normalizedSubject, mailAddresses, input.subjectSince);
    // only within one project: a subject shared by threads of two projects matches neither
    const projects = new Set(threads.map((t) => t.projectId));
    const thread = threads[0];
    if (thread && projects.size === 1 && !suspiciousFor(thread.participants)) {
      const send = thread.activityId ? await repo.send(thread.projectId, thread.activityId) : null;
      return {
        ...base,
        projectId: thread.projectId,
        matchedBy: "subject",
        send,
        threadId: thread.threadId,
        recipient: null,
        suspicious: false,
      };
    }
  }
  if (input.normalizedSubject && sender && !input.dmarcFailed) {
    const sends = (await repo.sendsTo(sender, input.subjectSince)).filter(
      (s) => normalizeSubject(sentSubject(s)) === input.normalizedSubject,
    );
    const projects = new Set(sends.map((s) => s.projectId));
    // newest first: the latest send with that subject is the one answered
    const send = sends[0];
    if (send && projects.size === 1) return { ...outcome(send, "subject", null), threadId: send.threadId };
  }
  return {
    ...base,
    projectId: null,
    matchedBy: null,
    send: null,
    recipient: null,
    suspicious: input.dmarcFailed,
  };
}
