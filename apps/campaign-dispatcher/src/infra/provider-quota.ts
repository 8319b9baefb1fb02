import type { Logger } from "@emailsvc/observability";
import { getAccount, type SesClient } from "@emailsvc/provider";

/** The provider's 24-hour quota as last read, and the campaign sends handed over since (not yet in its count). */
export interface ProviderQuotaReading {
  max24HourSend: number;
  /** as the provider counted when it was read */
  sentLast24Hours: number;
  /** campaign sends this replica handed over since that reading */
  handedOverSince: number;
  /** 'provider': SES GetAccount answered; 'config': it did not, PROVIDER_DAILY_QUOTA stands in for the limit */
  source: "provider" | "config";
}

export interface ProviderQuota {
  /** The latest reading (asked again after `refreshMs`), with this replica's hand-overs since. */
  current(): Promise<ProviderQuotaReading>;
  /** Campaign sends this replica just handed over: used quota until the next reading includes them. */
  handedOver(n: number): void;
}

/**
 * Spec 8's "Emails per day (provider) 106,000", read from SES `GetAccount` (Max24HourSend, SentLast24Hours), which
 * is the account's real figure; `fallbackMax` (config) when the call fails.
 */
export function createProviderQuota(opts: {
  ses: SesClient;
  fallbackMax: number;
  refreshMs: number;
  logger: Logger;
}): ProviderQuota {
  let reading: (Omit<ProviderQuotaReading, "handedOverSince"> & { at: number }) | null = null;
  let since = 0;
  let inFlight: Promise<void> | null = null;
  async function refresh(): Promise<void> {
    try {
      const a = await getAccount(opts.ses);
      reading = {
        max24HourSend: a.max24HourSend,
        sentLast24Hours: a.sentLast24Hours,
        source: "provider",
        at: Date.now(),
      };
    } catch (err) {
      opts.logger.warn({ err }, "provider GetAccount failed; using PROVIDER_DAILY_QUOTA");
      reading = { max24HourSend: opts.fallbackMax, sentLast24Hours: 0, source: "config", at: Date.now() };
    }
    since = 0;
  }
  return {
    async current() {
      if (!reading || Date.now() - reading.at >= opts.refreshMs) {
        inFlight ??= refresh().finally(() => (inFlight = null));
        await inFlight;
      }
      const r = reading!;
      return {
        max24HourSend: r.max24HourSend,
        sentLast24Hours: r.sentLast24Hours,
        handedOverSince: since,
        source: r.source,
      };
    },
    handedOver(n) {
      since += n;
    },
  };
}
