import { request } from "undici";
import {
  guardedAgent,
  isBlockedAddress,
  isPublicUnicast,
  refusedLiteral,
  type AddressPolicy,
} from "@emailsvc/http";

/** Why a download was refused or failed; each maps to a user-safe message in prepare-attachments. */
export type DownloadFailure =
  | "blocked_address" // private, reserved or otherwise non-public address (literal, DNS answer or redirect hop)
  | "bad_url" // not http(s), credentials in the URL, unparsable Location
  | "timeout"
  | "too_large"
  | "too_many_redirects"
  | "http_status" // the server answered something other than 2xx / 3xx-with-Location
  | "network"; // DNS failure, connection refused, reset

export class DownloadError extends Error {
  override name = "DownloadError";
  constructor(
    readonly failure: DownloadFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface SafeDownloaderOptions {
  /** The whole download: every redirect hop and the body. */
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Which resolved or literal addresses may be connected to; default public unicast only. */
  allowAddress?: AddressPolicy;
}

export interface Downloaded {
  body: Buffer;
  /** The server's Content-Type without parameters, lowercased; null when absent. */
  contentType: string | null;
  finalUrl: string;
}

export interface SafeDownloader {
  download(url: string): Promise<Downloaded>;
  /** What `download` checks before any network: the URL's form, scheme, credentials, a literal address. */
  check(url: string): void;
  close(): Promise<void>;
}

/**
 * Downloads attachment URLs without becoming an SSRF proxy: http(s) only, every hop's address checked (literal
 * IPs here, names in the connector's lookup), redirects followed by hand (at most `maxRedirects`), one deadline
 * for everything, and a byte cap enforced while streaming (Content-Length is only a hint).
 */
export function createSafeDownloader(opts: SafeDownloaderOptions): SafeDownloader {
  const allow = opts.allowAddress ?? isPublicUnicast;
  const agent = guardedAgent(allow, {
    connect: { timeout: opts.timeoutMs },
    // Attachment hosts are arbitrary: do not keep idle sockets to them around.
    keepAliveTimeout: 1_000,
    maxResponseSize: opts.maxBytes,
  });

  const checkHop = (url: URL): void => {
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new DownloadError("bad_url", "Attachment URL must use http or https");
    if (url.username || url.password)
      throw new DownloadError("bad_url", "Attachment URL must not contain credentials");
    if (refusedLiteral(url, allow))
      throw new DownloadError("blocked_address", "Attachment URL points to a private or reserved address");
  };
  const parse = (rawUrl: string): URL => {
    try {
      return new URL(rawUrl);
    } catch {
      throw new DownloadError("bad_url", "Attachment URL is not a valid URL");
    }
  };

  async function fetchOnce(url: URL, signal: AbortSignal) {
    checkHop(url);
    return request(url, {
      method: "GET",
      dispatcher: agent,
      signal,
      headers: { "user-agent": "emailsvc-attachment-fetcher/1.0", accept: "*/*" },
    });
  }

  return {
    check(rawUrl: string): void {
      checkHop(parse(rawUrl));
    },
    async download(rawUrl: string): Promise<Downloaded> {
      let url = parse(rawUrl);
      const controller = new AbortController();
      const timer = setTimeout(
        () => controller.abort(new DownloadError("timeout", "Attachment download timed out")),
        opts.timeoutMs,
      );
      try {
        for (let hop = 0; ; hop++) {
          const res = await fetchOnce(url, controller.signal);
          if (res.statusCode >= 300 && res.statusCode < 400) {
            const location = res.headers.location;
            await res.body.dump();
            if (typeof location !== "string")
              throw new DownloadError(
                "http_status",
                `Attachment URL answered ${res.statusCode} without a Location`,
              );
            if (hop >= opts.maxRedirects)
              throw new DownloadError(
                "too_many_redirects",
                `Attachment URL redirected more than ${opts.maxRedirects} times`,
              );
            try {
              url = new URL(location, url);
            } catch {
              throw new DownloadError("bad_url", "Attachment URL redirected to an invalid URL");
            }
            continue;
          }
          if (res.statusCode < 200 || res.statusCode >= 300) {
            await res.body.dump();
            throw new DownloadError("http_status", `Attachment URL answered HTTP ${res.statusCode}`);
          }
          const declared = Number(res.headers["content-length"]);
          if (Number.isFinite(declared) && declared > opts.maxBytes) {
            res.body.destroy();
            throw new DownloadError("too_large", "Attachment exceeds the 10 MB limit");
          }
          const chunks: Buffer[] = [];
          let size = 0;
          for await (const chunk of res.body) {
            size += (chunk as Buffer).length;
            if (size > opts.maxBytes) {
              res.body.destroy();
              throw new DownloadError("too_large", "Attachment exceeds the 10 MB limit");
            }
            chunks.push(chunk as Buffer);
          }
          const ct = res.headers["content-type"];
          const contentType =
            typeof ct === "string" ? (ct.split(";")[0]?.trim().toLowerCase() ?? null) || null : null;
          return { body: Buffer.concat(chunks, size), contentType, finalUrl: url.toString() };
        }
      } catch (err) {
        if (err instanceof DownloadError) throw err;
        if (controller.signal.aborted)
          throw new DownloadError("timeout", "Attachment download timed out", { cause: err });
        if (isBlockedAddress(err))
          throw new DownloadError(
            "blocked_address",
            "Attachment URL points to a private or reserved address",
            { cause: err },
          );
        const code = (err as { code?: string }).code;
        if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE")
          throw new DownloadError("too_large", "Attachment exceeds the 10 MB limit", { cause: err });
        if (
          code === "UND_ERR_CONNECT_TIMEOUT" ||
          code === "UND_ERR_HEADERS_TIMEOUT" ||
          code === "UND_ERR_BODY_TIMEOUT"
        )
          throw new DownloadError("timeout", "Attachment download timed out", { cause: err });
        throw new DownloadError("network", "Attachment URL could not be downloaded", { cause: err });
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => agent.close(),
  };
}
