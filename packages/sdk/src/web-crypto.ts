/**
 * Web Crypto wherever the SDK runs: the global `crypto` of browsers, Deno, Bun, edge workers and Node 19+; on
 * Node 18 (where it is not global by default) node:crypto's `webcrypto`, loaded only there. The specifier is a
 * variable so bundlers for other runtimes do not try to resolve it.
 */
let cached: Promise<Crypto> | undefined;

export function webCrypto(): Promise<Crypto> {
  cached ??= (async () => {
    const global = (globalThis as { crypto?: Crypto }).crypto;
    if (global?.subtle && typeof global.randomUUID === "function") return global;
    const specifier = "node:crypto";
    const mod = (await import(specifier)) as { webcrypto: Crypto };
    return mod.webcrypto;
  })();
  return cached;
}

/** A fresh v4 UUID (an `Idempotency-Key` for a call that was not given one). */
export async function randomUUID(): Promise<string> {
  return (await webCrypto()).randomUUID();
}
