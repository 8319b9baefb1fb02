import {
  hasControlCharacter,
  type ImportColumn,
  type ImportOptions,
  isEmailAddress,
  LEAD_LIMITS,
  leadUpsertSchema,
  normalizeLeadEmail,
  type SubscriptionState,
} from "@emailsvc/contracts";
import type { Cell, Row } from "../rows/row";

/** A row as the lead it would become (empty cells are absent: they never blank a known lead's value). */
export interface LeadCandidate {
  /** The id a new lead gets: empty here, set by whoever writes it (time-ordered, the database package's). */
  id: string;
  line: number;
  /** as written (trimmed), kept for display by a new lead */
  email: string;
  /** the lead's identity in its project (contracts normalizeLeadEmail) */
  norm: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  /** custom attributes as JSON text ("{}" when none): merged into a known lead's */
  attributes: string;
  /** added to a known lead's */
  tags: string[];
  /** consent the row states (honoured), or null */
  subscription: SubscriptionState | null;
}

export type RowOutcome = { ok: true; lead: LeadCandidate } | { ok: false; line: number; reason: string };

const SUBSCRIBED = new Set(
  "subscribed|yes|y|true|1|x|opted in|opt in|optin|opt-in|active|confirmed|ja|oui|si|sí".split("|"),
);
const UNSUBSCRIBED = new Set(
  "unsubscribed|no|n|false|0|opted out|opt out|optout|opt-out|unsubscribe|cleaned|bounced|nein|non".split(
    "|",
  ),
);
const UNKNOWN = new Set(
  "unknown|pending|transactional|never subscribed|not subscribed|non-subscribed|non subscribed".split("|"),
);

/** A consent cell: subscribed / unsubscribed / unknown and their usual spellings; undefined when unrecognised. */
export function subscriptionOf(value: string, inverted: boolean): SubscriptionState | null | undefined {
  const v = value.trim().toLowerCase();
  if (v === "") return null;
  if (inverted) {
    // An `Unsubscribed` / `Email Opt Out` column: yes means unsubscribed; no says nothing about consent.
    if (v === "subscribed" || v === "unsubscribed" || UNKNOWN.has(v)) return subscriptionOf(v, false);
    if (SUBSCRIBED.has(v)) return "unsubscribed";
    if (UNSUBSCRIBED.has(v)) return null;
    return undefined;
  }
  if (SUBSCRIBED.has(v)) return "subscribed";
  if (UNSUBSCRIBED.has(v)) return "unsubscribed";
  if (UNKNOWN.has(v)) return "unknown";
  return undefined;
}

/**
 * normalizeLeadEmail with the domain's ASCII form remembered: an import meets the same few thousand domains a
 * million times, and domainToASCII was a noticeable share of reading a row. Same result as normalizeLeadEmail.
 */
export function emailNormalizer(max = 10_000): (email: string) => string {
  const domains = new Map<string, string>();
  return (email) => {
    const lower = email.trim().toLowerCase();
    const at = lower.lastIndexOf("@");
    if (at < 0) return normalizeLeadEmail(email);
    const domain = lower.slice(at + 1);
    let ascii = domains.get(domain);
    if (ascii === undefined) {
      ascii = normalizeLeadEmail(`x@${domain}`).slice(2);
      if (domains.size >= max) domains.clear();
      domains.set(domain, ascii);
    }
    return `${lower.slice(0, at)}@${ascii}`;
  };
}

const text = (c: Cell | undefined): string => (c === null || c === undefined ? "" : String(c).trim());
const cut = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n)}…` : s);
const phoneSchema = leadUpsertSchema.shape.phone;

/**
 * Validates rows one by one against the job's mapping and options, each giving a lead or the reason it is
 * refused (the error report's text). The same rules as POST /v1/leads: LEAD_LIMITS, the phone format, tag and
 * attribute sizes.
 */
export function createRowReader(
  columns: readonly ImportColumn[],
  options: ImportOptions,
): (row: Row) => RowOutcome {
  const col = (target: string) => columns.find((c) => c.target === target)?.index ?? -1;
  const email = col("email");
  const first = col("first_name");
  const last = col("last_name");
  const full = col("name");
  const phone = col("phone");
  const tags = col("tags");
  const sub = options.honor_subscription ? col("subscription") : -1;
  const unsub = options.honor_subscription ? col("unsubscribed") : -1;
  const attributes = columns
    .filter((c) => c.target.startsWith("attribute:"))
    .map((c) => ({ index: c.index, name: c.target.slice("attribute:".length) }));
  const width = columns.length;
  const fixedTags = options.tags;
  const normalize = emailNormalizer();

  return (row) => {
    const cells = row.cells;
    const fail = (reason: string): RowOutcome => ({ ok: false, line: row.line, reason });
    for (let i = width; i < cells.length; i++)
      if (text(cells[i]) !== "")
        return fail(`has ${cells.length} cells; the header has ${width} (an unquoted delimiter?)`);
    const address = text(cells[email]);
    if (address === "") return fail("no email address");
    if (address.includes("\0") || !isEmailAddress(address))
      return fail(`not a valid email address: ${cut(address)}`);

    let firstName: string | null = text(cells[first]) || null;
    let lastName: string | null = text(cells[last]) || null;
    if (full >= 0 && !firstName && !lastName) {
      const name = text(cells[full]);
      const comma = name.indexOf(",");
      if (comma > 0) {
        lastName = name.slice(0, comma).trim() || null;
        firstName = name.slice(comma + 1).trim() || null;
      } else if (name) {
        const space = name.indexOf(" ");
        firstName = space > 0 ? name.slice(0, space) : name;
        lastName = space > 0 ? name.slice(space + 1).trim() || null : null;
      }
    }
    for (const [field, value] of [
      ["first_name", firstName],
      ["last_name", lastName],
    ] as const) {
      if (value && value.length > LEAD_LIMITS.nameLength)
        return fail(`${field} is longer than ${LEAD_LIMITS.nameLength} characters`);
      if (value?.includes("\0")) return fail(`${field} holds a NUL character`);
    }

    let phoneValue: string | null = null;
    const rawPhone = text(cells[phone]);
    if (rawPhone) {
      const parsed = phoneSchema.safeParse(rawPhone);
      if (!parsed.success)
        return fail(`phone ${cut(rawPhone, 40)} ${parsed.error.issues[0]?.message ?? "is invalid"}`);
      phoneValue = parsed.data ?? null;
    }

    let tagList = fixedTags;
    const rawTags = text(cells[tags]);
    if (rawTags) {
      const list = fixedTags.slice();
      for (const t of rawTags.split(/[,;|]/)) {
        // Mailchimp writes its tags quoted: "customers","2023 cohort"
        const tag = t
          .trim()
          .replace(/^"(.*)"$/, "$1")
          .trim();
        if (!tag) continue;
        if (tag.length > LEAD_LIMITS.tagLength)
          return fail(`tag ${cut(tag, 40)} is longer than ${LEAD_LIMITS.tagLength} characters`);
        if (hasControlCharacter(tag)) return fail("a tag holds a control character");
        if (!list.includes(tag)) list.push(tag);
      }
      if (list.length > LEAD_LIMITS.tags) return fail(`has ${list.length} tags; at most ${LEAD_LIMITS.tags}`);
      tagList = list;
    }

    let subscription: SubscriptionState | null = null;
    for (const [index, inverted] of [
      [sub, false],
      [unsub, true],
    ] as const) {
      const raw = text(cells[index]);
      if (!raw) continue;
      const state = subscriptionOf(raw, inverted);
      if (state === undefined)
        return fail(`subscription ${cut(raw, 40)} is not one of subscribed, unsubscribed, unknown, yes, no`);
      // Unsubscribed wins over anything another column says.
      if (state && subscription !== "unsubscribed") subscription = state;
    }

    let attrs = "{}";
    if (attributes.length) {
      const values: Record<string, Cell> = {};
      let any = false;
      for (const a of attributes) {
        const c = cells[a.index];
        if (c === null || c === undefined) continue;
        const v = typeof c === "string" ? c.trim() : c;
        if (v === "") continue;
        if (typeof v === "string") {
          if (v.includes("\0")) return fail(`attribute ${a.name} holds a NUL character`);
          if (Buffer.byteLength(v) > LEAD_LIMITS.attributeValueBytes - 2)
            return fail(`attribute ${a.name} is longer than ${LEAD_LIMITS.attributeValueBytes / 1024} KB`);
        }
        values[a.name] = v;
        any = true;
      }
      if (any) {
        attrs = JSON.stringify(values);
        if (Buffer.byteLength(attrs) > LEAD_LIMITS.attributesBytes)
          return fail(`its attributes are larger than ${LEAD_LIMITS.attributesBytes / 1024} KB`);
      }
    }

    return {
      ok: true,
      lead: {
        id: "",
        line: row.line,
        email: address,
        norm: normalize(address),
        firstName,
        lastName,
        phone: phoneValue,
        attributes: attrs,
        tags: tagList,
        subscription,
      },
    };
  };
}
