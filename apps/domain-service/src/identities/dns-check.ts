import { Resolver } from "node:dns/promises";

/** TXT records of a name, each as its character-string chunks (node:dns's resolveTxt shape). */
export type TxtLookup = (name: string) => Promise<string[][]>;

/** The system resolver, one try of 2 s: a verify call never waits long on DNS. */
export function systemTxtLookup(): TxtLookup {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 });
  return (name) => resolver.resolveTxt(name);
}

/**
 * Whether `_dmarc.<domain>` publishes a DMARC policy. The provider does not check DMARC, so POST …/verify asks
 * DNS itself: true when a `v=DMARC1` record is there, null when there is none yet (the record stays pending),
 * undefined when DNS did not answer (the stored state is kept).
 */
export async function dmarcPublished(
  lookup: TxtLookup,
  asciiDomain: string,
): Promise<true | null | undefined> {
  try {
    const records = await lookup(`_dmarc.${asciiDomain}`);
    return records.some((chunks) => /^v=dmarc1\b/i.test(chunks.join("").trim())) ? true : null;
  } catch (err) {
    const code = (err as { code?: string }).code;
    return code === "ENOTFOUND" || code === "ENODATA" ? null : undefined;
  }
}
