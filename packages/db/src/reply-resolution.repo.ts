import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "./create-db";

// How inbound-mail finds the send a reply answers (spec 4.9 step 3): by reply token, legacy address, In-Reply-To,
// References or subject, over the activities, messages and threads the send path and inbound-mail wrote.

/** The original send a reply answers: its activity, message and project facts. */
export interface OutboundSend {
  activityId: string;
  projectId: ProjectId;
  isTest: boolean;
  emailMessageId: string;
  campaignId: string | null;
  emailType: string;
  /** email_messages.source: api, internal, platform, batch, campaign, automation */
  source: string;
  /** whether it carried the reply-token Reply-To (spec 4.11: dashboard sends do not) */
  hasReplyToken: boolean;
  /** bare lower-case Message-ID as delivered, when known */
  messageId: string | null;
  subject: string;
  recipient: string;
  fromEmail: string;
  /**
   * The thread replies to this send are in, once its first reply created it: the reply then needs no statement of
   * its own to find it (a round trip per reply, which costs more than the lookup on a busy machine).
   */
  threadId: string | null;
}

/** The send's columns; every query naming them joins `th`, the send's thread if there is one yet. */
const SEND_COLUMNS = `
  a.id AS activity_id, a.project_id, a.is_test, a.email_message_id, COALESCE(a.campaign_id, m.campaign_id) AS campaign_id,
  a.email_type, m.source, a.reply_token IS NOT NULL AS has_reply_token,
  COALESCE(a.message_id, CASE WHEN a.provider_message_id IS NULL THEN NULL ELSE lower(a.provider_message_id) || '@' || $DOMAIN END) AS message_id,
  m.subject, a.recipient, m.from_email, th.id AS thread_id`;

/** The send's thread (unique per project and activity), when a reply created it already. */
const THREAD_JOIN = "LEFT JOIN inbound_threads th ON th.project_id = a.project_id AND th.activity_id = a.id";

interface SendRow {
  activity_id: string;
  project_id: ProjectId;
  is_test: boolean;
  email_message_id: string;
  campaign_id: string | null;
  email_type: string;
  source: string;
  has_reply_token: boolean;
  message_id: string | null;
  subject: string;
  recipient: string;
  from_email: string;
  thread_id: string | null;
  key?: string;
}

const toSend = (r: SendRow): OutboundSend => ({
  activityId: r.activity_id,
  projectId: r.project_id,
  isTest: r.is_test,
  emailMessageId: r.email_message_id,
  campaignId: r.campaign_id,
  emailType: r.email_type,
  source: r.source,
  hasReplyToken: r.has_reply_token,
  messageId: r.message_id,
  subject: r.subject,
  recipient: r.recipient,
  fromEmail: r.from_email,
  threadId: r.thread_id,
});

/** Lookups of the thread rules (spec 4.9 step 3), each scoped as the rule demands. */
export interface ResolveRepo {
  /** token → its send, only where the token's project owns the activity. Keyed by token. */
  byTokens(tokens: string[]): Promise<Map<string, OutboundSend>>;
  /** the legacy form: the activity, only when it belongs to that project */
  byLegacy(projectId: ProjectId, activityId: string): Promise<OutboundSend | null>;
  /** sends whose delivered Message-ID is one of `ids`, keyed by that id */
  byMessageIds(ids: string[]): Promise<Map<string, OutboundSend>>;
  /**
   * Threads with this normalised subject active since `since` whose participants include one of `addresses`:
   * the candidates of the subject rule, newest first.
   */
  threadsBySubject(
    normalizedSubject: string,
    addresses: string[],
    since: Date,
  ): Promise<{ threadId: string; projectId: ProjectId; participants: string[]; activityId: string | null }[]>;
  send(projectId: ProjectId, activityId: string): Promise<OutboundSend | null>;
  /**
   * The latest sends to `recipient` (compared lower-case) that the provider accepted since `since`, newest first,
   * with what their subject was rendered from: the subject rule's candidates for a first reply, which has no
   * thread yet to match.
   */
  sendsTo(recipient: string, since: Date): Promise<SubjectCandidate[]>;
}

/** A send the subject rule may match: its subject as stored, rendered per recipient with `data`. */
export interface SubjectCandidate extends OutboundSend {
  data: unknown;
  /** the subject is a stored template's (`{v}` syntax), else `{{v}}` variables */
  fromTemplate: boolean;
}

/** How many recent sends to one address the subject rule weighs: enough for any real conversation. */
const SUBJECT_CANDIDATES = 50;

/**
 * `domain` is SES's Message-ID domain (`email.amazonses.com` in us-east-1): a send whose Message-ID was not
 * recorded (its worker died after SES accepted it) is still found by the id SES gave it.
 */
export function createResolveRepo(db: Db, domain: string): ResolveRepo {
  const cols = SEND_COLUMNS.replace("$DOMAIN", "$2::text");
  return {
    async byTokens(tokens) {
      if (!tokens.length) return new Map();
      const { rows } = await db.pool.query<SendRow>(
        `SELECT t.token AS key, ${cols}
           FROM reply_tokens t
           JOIN activities a ON a.id = t.activity_id AND a.project_id = t.project_id
           JOIN email_messages m ON m.id = a.email_message_id
           ${THREAD_JOIN}
          WHERE t.token = ANY($1::text[])`,
        [tokens, domain],
      );
      return new Map(rows.map((r) => [r.key!, toSend(r)]));
    },
    async byLegacy(projectId, activityId) {
      const { rows } = await db.pool.query<SendRow>(
        `SELECT ${cols} FROM activities a JOIN email_messages m ON m.id = a.email_message_id ${THREAD_JOIN}
          WHERE a.id = $1::uuid AND a.project_id = $3::uuid`,
        [activityId, domain, projectId],
      );
      return rows[0] ? toSend(rows[0]) : null;
    },
    async byMessageIds(ids) {
      if (!ids.length) return new Map();
      // SES ids (`<provider id>@…amazonses.com`) are also looked up by provider_message_id (unique index).
      const providerIds = ids
        .filter((id) => /@([a-z0-9-]+\.)?amazonses\.com$/.test(id))
        .map((id) => id.slice(0, id.lastIndexOf("@")));
      const { rows } = await db.pool.query<SendRow>(
        `SELECT ${cols} FROM activities a JOIN email_messages m ON m.id = a.email_message_id ${THREAD_JOIN}
          WHERE a.message_id = ANY($1::text[]) OR a.provider_message_id = ANY($3::text[])`,
        [ids, domain, providerIds],
      );
      const out = new Map<string, OutboundSend>();
      for (const r of rows) {
        const s = toSend(r);
        if (s.messageId) out.set(s.messageId, s);
      }
      return out;
    },
    async threadsBySubject(normalizedSubject, addresses, since) {
      const { rows } = await db.pool.query<{
        id: string;
        project_id: ProjectId;
        participants: string[];
        activity_id: string | null;
      }>(
        `SELECT id, project_id, participants, activity_id FROM inbound_threads
          WHERE normalized_subject = $1 AND last_message_at >= $2 AND participants && $3::text[]
          ORDER BY last_message_at DESC LIMIT 20`,
        [normalizedSubject, since, addresses],
      );
      return rows.map((r) => ({
        threadId: r.id,
        projectId: r.project_id,
        participants: r.participants,
        activityId: r.activity_id,
      }));
    },
    async send(projectId, activityId) {
      return this.byLegacy(projectId, activityId);
    },
    async sendsTo(recipient, since) {
      // activities_recipient_idx: (lower(recipient), created_at); sent_at filters a recipient's few rows to sends that left
      const { rows } = await db.pool.query<SendRow & { data: unknown; from_template: boolean }>(
        `SELECT ${cols}, a.data, m.template_id IS NOT NULL AS from_template
           FROM activities a JOIN email_messages m ON m.id = a.email_message_id ${THREAD_JOIN}
          WHERE lower(a.recipient) = $1 AND a.created_at >= $3 AND a.sent_at IS NOT NULL
          ORDER BY a.created_at DESC LIMIT ${SUBJECT_CANDIDATES}`,
        [recipient.trim().toLowerCase(), domain, since],
      );
      return rows.map((r) => ({ ...toSend(r), data: r.data, fromTemplate: r.from_template }));
    },
  };
}
