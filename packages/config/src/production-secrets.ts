/**
 * Production refuses secrets anyone could know (issue 49 item 4). The compose file once shipped an all-zero
 * API_KEY_ENCRYPTION_KEY and `change-me-*` tracking and admin secrets with NODE_ENV=production: with the known
 * TRACKING_SECRET anyone forges click redirects and unsubscribe links on your domain, with the known key a database
 * dump yields every API key. These are the secrets of the env pieces, each with its minimum length in production.
 */
export const PRODUCTION_SECRETS: Record<string, { minLength: number }> = {
  /** 64 hex characters (32 bytes) in every environment; production also refuses a guessable one. */
  API_KEY_ENCRYPTION_KEY: { minLength: 64 },
  TRACKING_SECRET: { minLength: 32 },
  ADMIN_TOKEN: { minLength: 32 },
  INTERNAL_TOKEN: { minLength: 32 },
};

/** Words of the placeholders this repository and its docs have shipped or that people type for "fill me in". */
const PLACEHOLDER = /change[-_ ]?me|replace[-_ ]?me|placeholder|your[-_ ]?(secret|token|key)|example|xxxxxx/i;

/** Shannon entropy of the characters of `s`, in bits per character. */
export function bitsPerChar(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** The shortest unit `s` repeats (`abab` → 2), or s.length when it repeats none. */
function period(s: string): number {
  for (let p = 1; p <= s.length / 2; p++) {
    if (s.length % p === 0 && s.slice(0, p).repeat(s.length / p) === s) return p;
  }
  return s.length;
}

/**
 * Why `value` is not fit to be the production secret `name`, or null. A heuristic for values a person typed or
 * copied (a placeholder, one character repeated, a short pattern repeated, few distinct characters); the output of
 * `openssl rand -hex 32` or `pnpm secrets` always passes (a 32-character random hex string has about 3.5 bits per
 * character; the floor is 3).
 */
export function secretProblem(name: string, value: string | undefined): string | null {
  const rule = PRODUCTION_SECRETS[name];
  if (!rule) return null;
  if (value === undefined || value === "") return "is required in production";
  if (PLACEHOLDER.test(value)) return "is a known placeholder: generate a random value (pnpm secrets)";
  if (/^0+$/.test(value)) return "is all zeros: generate a random value (pnpm secrets)";
  if (value.length < rule.minLength) return `must be at least ${rule.minLength} characters in production`;
  if (period(value) < value.length || new Set(value).size < 8 || bitsPerChar(value) < 3)
    return "has too little entropy (a repeated or short pattern): generate a random value (pnpm secrets)";
  return null;
}

/** Every production secret of `names` that `env` holds badly, as `NAME: why` lines for EnvError. */
export function productionSecretProblems(names: Iterable<string>, env: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const value = env[name];
    const problem = secretProblem(name, typeof value === "string" ? value : undefined);
    if (problem) problems.push(`${name}: ${problem}`);
  }
  return problems;
}
