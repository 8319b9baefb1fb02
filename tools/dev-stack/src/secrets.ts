/**
 * The platform's secrets for a local stack (`pnpm start`: .local/secrets.json) and for compose (`pnpm secrets`:
 * the `.env` docker compose reads). Random values, generated once and then kept: the stored API keys are encrypted
 * with API_KEY_ENCRYPTION_KEY, so a new one would make them unreadable. Files holding them are mode 0600.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";

export const SECRET_NAMES = [
  "API_KEY_ENCRYPTION_KEY",
  "TRACKING_SECRET",
  "ADMIN_TOKEN",
  "INTERNAL_TOKEN",
] as const;
export type SecretName = (typeof SECRET_NAMES)[number];
export type Secrets = Record<SecretName, string>;

/** A fresh random value of the shape each secret needs (packages/config's production check accepts them all). */
export function newSecret(name: SecretName): string {
  switch (name) {
    case "API_KEY_ENCRYPTION_KEY":
      return randomBytes(32).toString("hex"); // AES-256-GCM: 64 hex characters
    case "TRACKING_SECRET":
      return randomBytes(24).toString("hex");
    case "ADMIN_TOKEN":
      return `adm_${randomBytes(24).toString("hex")}`;
    case "INTERNAL_TOKEN":
      return `int_${randomBytes(24).toString("hex")}`;
  }
}

/** Writes `text` readable by its owner only, also when the file existed before with a wider mode. */
export function writePrivate(file: string, text: string): void {
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

/**
 * .local/secrets.json: read, with any secret it lacks generated and added (a file from before INTERNAL_TOKEN
 * existed keeps its other values, so its stored keys stay readable). Returns the names it added.
 */
export function ensureSecretsFile(file: string): { secrets: Secrets; added: SecretName[] } {
  const stored = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Secrets>)
    : ({} as Partial<Secrets>);
  const added = SECRET_NAMES.filter((n) => !stored[n]);
  const secrets = { ...stored } as Secrets;
  for (const n of added) secrets[n] = newSecret(n);
  writePrivate(file, JSON.stringify(secrets, null, 2) + "\n");
  return { secrets, added };
}

/** KEY=value lines of a dotenv file (comments and blank lines skipped; no quoting, as compose's own format). */
export function parseDotenv(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m && !line.trim().startsWith("#")) out.set(m[1]!, m[2]!);
  }
  return out;
}

/**
 * The `.env` of docker compose: every secret it lacks (or holds as an old `change-me` placeholder) generated, the
 * others and every other line kept. Returns what it generated and what it kept.
 */
export function ensureComposeEnv(file: string): { generated: SecretName[]; kept: SecretName[] } {
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const current = parseDotenv(text);
  const usable = (n: SecretName) => {
    const v = current.get(n);
    return !!v && !/change[-_ ]?me/i.test(v) && !/^0+$/.test(v);
  };
  const generated = SECRET_NAMES.filter((n) => !usable(n));
  const kept = SECRET_NAMES.filter(usable);
  const lines = text
    .split(/\r?\n/)
    .filter((l) => !generated.some((n) => new RegExp(`^\\s*${n}\\s*=`).test(l)))
    .join("\n")
    .trimEnd();
  const header = text
    ? ""
    : "# docker compose's secrets, written by `pnpm secrets` (random; keep this file private)\n";
  const added = generated.map((n) => `${n}=${newSecret(n)}`).join("\n");
  writePrivate(file, `${header}${lines ? `${lines}\n` : ""}${added ? `${added}\n` : ""}`);
  return { generated, kept };
}
