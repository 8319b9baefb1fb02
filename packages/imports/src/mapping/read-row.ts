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
// Read once: through the packages' re-exports (as tsx and CommonJS builds give them) each use is a getter call.
const isEmail = isEmailAddress;
const hasControl = hasControlCharacter;
const LIMITS = LEAD_LIMITS;

const failed = (line: number, reason: string): RowOutcome => ({ ok: false, line, reason });

/** Why a first or last name is refused, or null. */
function nameProblem(field: string, value: string | null): string | null {
  if (!value) return null;
  if (value.length > LIMITS.nameLength) return `${field} is longer than ${LIMITS.nameLength} characters`;
  if (value.includes("\0")) return `${field} holds a NUL character`;
  return null;
}

/** A tags cell as the list it gives with the job's tags (a new array), or why it is refused. */
function readTags(raw: string, fixedTags: readonly string[]): string[] | string {
  const list = fixedTags.slice();
  for (const t of raw.split(/[,;|]/)) {
    // Mailchimp writes its tags quoted: "customers","2023 cohort"
    const tag = t
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .trim();
    if (!tag) continue;
    if (tag.length > LIMITS.tagLength)
      return `tag ${cut(tag, 40)} is longer than ${LIMITS.tagLength} characters`;
    if (hasControl(tag)) return "a tag holds a control character";
    if (!list.includes(tag)) list.push(tag);
  }
  if (list.length > LIMITS.tags) return `has ${list.length} tags; at most ${LIMITS.tags}`;
  return list;
}

/**
 * Validates rows one by one against the job's mapping and options, each giving a lead or the reason it is
 * refused (the error report's text). The same rules as POST /v1/leads: LEAD_LIMITS, the phone format, tag and
 * attribute sizes. It runs once per row of a file of a million: no closure or array is made per row, and a tags
 * cell is read once per distinct text (files repeat a few lists); leads share that list (it is never changed).
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
    .map((c) => {
      const name = c.target.slice("attribute:".length);
      // The name as a JSON object key, written once: the row's attributes are then JSON built as text.
      return { index: c.index, name, key: `${JSON.stringify(name)}:` };
    });
  // Two columns for one attribute: the later one wins, as an object's key would (text building would repeat it).
  const distinctNames = new Set(attributes.map((a) => a.name)).size === attributes.length;
  const width = columns.length;
  const fixedTags = options.tags;
  const normalize = emailNormalizer();
  const tagLists = new Map<string, string[] | string>();

  function attributesOf(line: number, cells: Cell[]): string | RowOutcome {
    let json = "";
    let values: Record<string, Cell> | null = null;
    for (let k = 0; k < attributes.length; k++) {
      const a = attributes[k]!;
      const c = cells[a.index];
      if (c === null || c === undefined) continue;
      const v = typeof c === "string" ? c.trim() : c;
      if (v === "") continue;
      if (typeof v === "string") {
        if (v.includes("\0")) return failed(line, `attribute ${a.name} holds a NUL character`);
        if (
          v.length * 3 > LIMITS.attributeValueBytes - 2 &&
          Buffer.byteLength(v) > LIMITS.attributeValueBytes - 2
        )
          return failed(line, `attribute ${a.name} is longer than ${LIMITS.attributeValueBytes / 1024} KB`);
      }
      if (distinctNames) json += `${json ? "," : "{"}${a.key}${JSON.stringify(v)}`;
      else (values ??= {})[a.name] = v;
    }
    const attrs = values ? JSON.stringify(values) : json ? `${json}}` : "{}";
    if (attrs.length * 3 > LIMITS.attributesBytes && Buffer.byteLength(attrs) > LIMITS.attributesBytes)
      return failed(line, `its attributes are larger than ${LIMITS.attributesBytes / 1024} KB`);
    return attrs;
  }

  return (row) => {
    const cells = row.cells;
    const line = row.line;
    for (let i = width; i < cells.length; i++)
      if (text(cells[i]) !== "")
        return failed(line, `has ${cells.length} cells; the header has ${width} (an unquoted delimiter?)`);
    const address = text(cells[email]);
    if (address === "") return failed(line, "no email address");
    if (address.includes("\0") || !isEmail(address))
      return failed(line, `not a valid email address: ${cut(address)}`);

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
    const badName = nameProblem("first_name", firstName) ?? nameProblem("last_name", lastName);
    if (badName) return failed(line, badName);

    let phoneValue: string | null = null;
    const rawPhone = text(cells[phone]);
    if (rawPhone) {
      const parsed = phoneSchema.safeParse(rawPhone);
      if (!parsed.success)
        return failed(line, `phone ${cut(rawPhone, 40)} ${parsed.error.issues[0]?.message ?? "is invalid"}`);
      phoneValue = parsed.data ?? null;
    }

    let tagList = fixedTags;
    const rawTags = text(cells[tags]);
    if (rawTags) {
      let read = tagLists.get(rawTags);
      if (read === undefined) {
        read = readTags(rawTags, fixedTags);
        if (tagLists.size >= 1_000) tagLists.clear();
        tagLists.set(rawTags, read);
      }
      if (typeof read === "string") return failed(line, read);
      tagList = read;
    }

    // Unsubscribed wins over anything another column says.
    let subscription: SubscriptionState | null = null;
    const rawSub = sub >= 0 ? text(cells[sub]) : "";
    if (rawSub) {
      const state = subscriptionOf(rawSub, false);
      if (state === undefined) return failed(line, subscriptionProblem(rawSub));
      if (state) subscription = state;
    }
    const rawUnsub = unsub >= 0 ? text(cells[unsub]) : "";
    if (rawUnsub) {
      const state = subscriptionOf(rawUnsub, true);
      if (state === undefined) return failed(line, subscriptionProblem(rawUnsub));
      if (state && subscription !== "unsubscribed") subscription = state;
    }

    let attrs = "{}";
    if (attributes.length) {
      const read = attributesOf(line, cells);
      if (typeof read !== "string") return read;
      attrs = read;
    }

    return {
      ok: true,
      lead: {
        id: "",
        line,
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

const subscriptionProblem = (raw: string) =>
  `subscription ${cut(raw, 40)} is not one of subscribed, unsubscribed, unknown, yes, no`;
