import {
  attributeKeyProblem,
  type ImportColumn,
  type ImportFieldTarget,
  type ImportTarget,
  isEmailAddress,
  LEAD_LIMITS,
} from "@emailsvc/contracts";
import { ImportFileError } from "../errors";
import type { Cell } from "../rows/row";

/** A header as compared: lower case, accents dropped, anything but letters and digits one space. */
export function headerKey(header: string): string {
  return header
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

// Headers seen in exports of Mailchimp, Brevo, HubSpot, Shopify, Salesforce, Google and Outlook contacts, and
// spreadsheets people type themselves (a few in German, French and Spanish).
const SYNONYMS: Record<Exclude<ImportFieldTarget, "ignore">, string> = {
  email:
    "email|e mail|email address|e mail address|emailaddress|mail|mail address|email addr|primary email|email 1|e mail 1 value|email 1 value|contact email|subscriber email|user email|member email|work email|personal email|courriel|adresse email|adresse e mail|adresse mail|e mail adresse|email adresse|correo|correo electronico",
  first_name: "first name|firstname|first|given name|forename|fname|vorname|prenom|nombre",
  last_name:
    "last name|lastname|last|surname|family name|lname|nachname|nom|nom de famille|apellido|apellidos",
  name: "name|full name|fullname|contact name|display name|contact",
  phone:
    "phone|phone number|telephone|telephone number|tel|mobile|mobile phone|mobile number|cell|cell phone|phone 1 value|sms|telefon|telefono|telefone",
  tags: "tags|tag|labels|label",
  subscription:
    "subscription|subscription status|status|subscribed|email subscription|email status|email marketing|email marketing consent|accepts email marketing|accepts marketing|marketing consent|consent|opt in|opted in|optin|newsletter|member status",
  unsubscribed:
    "unsubscribed|unsubscribe|opted out|opt out|optout|email opt out|do not email|email blacklisted|blacklisted",
};

const BY_KEY = new Map<string, ImportFieldTarget>(
  Object.entries(SYNONYMS).flatMap(([target, keys]) =>
    keys.split("|").map((k) => [k, target as ImportFieldTarget]),
  ),
);

/** Attribute columns chosen automatically at most (a lead holds at most LEAD_LIMITS.attributeKeys). */
export const MAX_AUTO_ATTRIBUTES = 50;

/** An attribute name for a header nothing else matched (`Company Name` → company_name), or null. */
export function attributeNameOf(header: string): string | null {
  let key = headerKey(header).replace(/ /g, "_").slice(0, LEAD_LIMITS.attributeKeyLength);
  if (!key) return null;
  if (/^[0-9]/.test(key)) key = `_${key}`.slice(0, LEAD_LIMITS.attributeKeyLength);
  return attributeKeyProblem(key) ? null : key;
}

const looksLikeEmail = (c: Cell) => typeof c === "string" && c.includes("@") && isEmailAddress(c.trim());

/**
 * The column holding addresses when no header says so: the first where most non-empty sample values are email
 * addresses (an export whose column is called `Contact` or `Login`).
 */
export function emailColumnByContent(sample: readonly Cell[][], width: number): number {
  for (let col = 0; col < width; col++) {
    const values = sample.map((r) => r[col] ?? null).filter((c) => c !== null && c !== "");
    if (values.length > 0 && values.filter(looksLikeEmail).length >= Math.ceil(values.length * 0.8))
      return col;
  }
  return -1;
}

/** The header holds an address: the file has no header row, its first row is data. */
export const headerIsData = (header: readonly Cell[]): boolean => header.some(looksLikeEmail);

/**
 * One target per column: the override when the options name the header, else the header's synonym, else a
 * custom attribute named after it (up to MAX_AUTO_ATTRIBUTES), else ignored. A field two columns claim goes to
 * the first. The email column is required: by header, by override, or by content (`sample`).
 */
export function resolveMapping(
  header: readonly string[],
  overrides: Record<string, ImportTarget>,
  sample: readonly Cell[][] = [],
): ImportColumn[] {
  const byHeader = new Map<string, string>();
  header.forEach((h) => byHeader.set(h.trim(), h));
  for (const name of Object.keys(overrides)) {
    if (!byHeader.has(name.trim()))
      throw new ImportFileError(`the mapping names a column the file does not have: ${name}`, "bad_mapping");
  }
  const overrideOf = new Map(Object.entries(overrides).map(([h, t]) => [h.trim(), t]));
  const taken = new Set<string>();
  let attributes = 0;
  const columns: ImportColumn[] = header.map((h, index) => {
    const given = overrideOf.get(h.trim());
    let target: ImportTarget = given ?? BY_KEY.get(headerKey(h)) ?? "ignore";
    if (given === undefined && target === "ignore" && attributes < MAX_AUTO_ATTRIBUTES) {
      const name = attributeNameOf(h);
      if (name) target = `attribute:${name}`;
    }
    if (target.startsWith("attribute:")) {
      const problem = attributeKeyProblem(target.slice("attribute:".length));
      if (problem && given !== undefined)
        throw new ImportFileError(`mapping of ${h}: ${problem}`, "bad_mapping");
      if (problem) target = "ignore";
    }
    if (target !== "ignore" && taken.has(target)) {
      if (given !== undefined)
        throw new ImportFileError(`the mapping sends two columns to ${target}`, "bad_mapping");
      target = "ignore";
    }
    if (target !== "ignore") taken.add(target);
    if (target.startsWith("attribute:") && given === undefined) attributes++;
    return { index, header: h, target };
  });
  if (!taken.has("email")) {
    const col = emailColumnByContent(sample, header.length);
    const column = columns[col];
    if (column && !overrideOf.has(column.header.trim())) column.target = "email";
    else
      throw new ImportFileError(
        'no column holds email addresses: name one in the mapping option (e.g. {"Contact": "email"})',
        "no_email_column",
      );
  }
  return columns;
}
