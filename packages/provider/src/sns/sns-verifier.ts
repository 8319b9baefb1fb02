import { X509Certificate, createVerify } from "node:crypto";
import { request } from "undici";
import { snsStringToSign, type SnsMessage } from "./sns-message";

/** Thrown for any message that must not be trusted; `reason` is a stable machine-readable code. */
export class SnsVerificationError extends Error {
  constructor(
    readonly reason:
      | "malformed"
      | "unsupported-type"
      | "unsupported-signature-version"
      | "topic-not-allowed"
      | "cert-url-not-allowed"
      | "cert-fetch-failed"
      | "bad-signature",
    message: string,
  ) {
    super(message);
    this.name = "SnsVerificationError";
  }
}

/** AWS's own rule: certificates come only from sns.<region>.amazonaws.com(.cn), over https. */
export const AWS_SNS_CERT_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

export interface SnsVerifierOptions {
  /** Hostnames allowed to serve signing certificates. Default: AWS only. Widen only in dev/test config. */
  allowedCertHosts?: RegExp;
  /** Accept `http:` certificate URLs (the local simulator). Default false; never enable in production. */
  allowHttpCertUrls?: boolean;
  /** When given, only these TopicArns are accepted (checked before any certificate is fetched). */
  topicArnAllowlist?: string[];
  /** Certificate download; defaults to an undici GET with a timeout. Tests can inject a fixed certificate. */
  fetchCert?: (url: string) => Promise<string>;
  /** Certificates kept in memory (SNS rotates them rarely). */
  maxCachedCerts?: number;
}

export interface SnsVerifier {
  /** Resolves if the message is authentic and allowed; otherwise throws `SnsVerificationError`. */
  verify(message: unknown): Promise<void>;
}

async function defaultFetchCert(url: string): Promise<string> {
  // undici's request() does not follow redirects, so the allow-listed host is the one that answers.
  const res = await request(url, { method: "GET", headersTimeout: 5_000, bodyTimeout: 5_000 });
  const body = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`certificate download answered ${res.statusCode}`);
  return body;
}

function parseMessage(input: unknown): SnsMessage {
  let msg: unknown = input;
  if (typeof input === "string" || Buffer.isBuffer(input)) {
    try {
      msg = JSON.parse(input.toString());
    } catch {
      throw new SnsVerificationError("malformed", "SNS message is not valid JSON");
    }
  }
  if (typeof msg !== "object" || msg === null)
    throw new SnsVerificationError("malformed", "SNS message is not an object");
  const m = msg as Record<string, unknown>;
  for (const key of ["Type", "MessageId", "TopicArn", "Timestamp", "Signature", "SignatureVersion"]) {
    if (typeof m[key] !== "string" || !m[key])
      throw new SnsVerificationError("malformed", `SNS message lacks ${key}`);
  }
  // Lambda-style payloads spell it SigningCertUrl; accept both spellings.
  const certUrl = m.SigningCertURL ?? m.SigningCertUrl;
  if (typeof certUrl !== "string")
    throw new SnsVerificationError("malformed", "SNS message lacks SigningCertURL");
  return { ...(m as unknown as SnsMessage), SigningCertURL: certUrl };
}

export function createSnsVerifier(opts: SnsVerifierOptions = {}): SnsVerifier {
  const hostRule = opts.allowedCertHosts ?? AWS_SNS_CERT_HOST;
  const allowHttp = opts.allowHttpCertUrls ?? false;
  const topics = opts.topicArnAllowlist ? new Set(opts.topicArnAllowlist) : null;
  const fetchCert = opts.fetchCert ?? defaultFetchCert;
  const maxCached = opts.maxCachedCerts ?? 100;
  // Promises, so concurrent notifications signed with a new certificate trigger one download, not many.
  const cache = new Map<string, Promise<X509Certificate>>();

  function checkCertUrl(raw: string): void {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new SnsVerificationError("cert-url-not-allowed", "SigningCertURL is not a URL");
    }
    const protocolOk = url.protocol === "https:" || (allowHttp && url.protocol === "http:");
    if (
      !protocolOk ||
      url.username ||
      url.password ||
      !hostRule.test(url.hostname) ||
      !url.pathname.endsWith(".pem")
    ) {
      throw new SnsVerificationError("cert-url-not-allowed", `SigningCertURL not allowed: ${raw}`);
    }
  }

  function loadCert(url: string): Promise<X509Certificate> {
    const hit = cache.get(url);
    if (hit) return hit;
    const pending = fetchCert(url).then(
      (pem) => new X509Certificate(pem),
      (err: unknown) => {
        throw new SnsVerificationError(
          "cert-fetch-failed",
          `cannot fetch signing certificate: ${(err as Error).message}`,
        );
      },
    );
    // A failed download must not poison the cache; the next message retries it.
    pending.catch(() => cache.delete(url));
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string);
    cache.set(url, pending);
    return pending;
  }

  return {
    async verify(input: unknown): Promise<void> {
      const msg = parseMessage(input);
      if (!["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"].includes(msg.Type)) {
        throw new SnsVerificationError("unsupported-type", `unsupported SNS message Type: ${msg.Type}`);
      }
      if (msg.SignatureVersion !== "1" && msg.SignatureVersion !== "2") {
        throw new SnsVerificationError(
          "unsupported-signature-version",
          `unsupported SignatureVersion: ${msg.SignatureVersion}`,
        );
      }
      if (topics && !topics.has(msg.TopicArn)) {
        throw new SnsVerificationError("topic-not-allowed", `TopicArn not allowed: ${msg.TopicArn}`);
      }
      const certUrl = msg.SigningCertURL as string;
      checkCertUrl(certUrl);
      let cert: X509Certificate;
      try {
        cert = await loadCert(certUrl);
      } catch (err) {
        if (err instanceof SnsVerificationError) throw err;
        throw new SnsVerificationError(
          "cert-fetch-failed",
          `invalid signing certificate: ${(err as Error).message}`,
        );
      }
      const verifier = createVerify(msg.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256");
      verifier.update(snsStringToSign(msg), "utf8");
      let ok = false;
      try {
        ok = verifier.verify(cert.publicKey, msg.Signature as string, "base64");
      } catch {
        ok = false;
      }
      if (!ok) throw new SnsVerificationError("bad-signature", "SNS signature does not verify");
    },
  };
}
