import { getAccount, type SesClient } from "@emailsvc/provider";
import type { Logger } from "@emailsvc/observability";

/** The provider account's 24-hour sending quota, as SES GetAccount reports it. */
export interface ProviderQuotaReading {
  max_24_hour_send: number;
  sent_last_24_hours: number;
  max_send_rate: number;
  read_at: string;
}

/**
 * The overview's reading of the provider quota, asked at most once a minute per replica (GetAccount is throttled
 * by SES at 1 call/s per account). Null while the provider does not answer: the page says so rather than failing
 * or waiting.
 */
export function createProviderQuotaReader(
  ses: SesClient,
  logger: Logger,
  opts: { refreshMs?: number; waitMs?: number } = {},
) {
  const refreshMs = opts.refreshMs ?? 60_000;
  // the page does not wait on a slow provider: past this, the previous reading (or none) answers and the
  // reading goes on in the background for the next request
  const waitMs = opts.waitMs ?? 1_500;
  let last: { at: number; reading: ProviderQuotaReading | null } | null = null;
  let inFlight: Promise<void> | null = null;
  const refresh = async () => {
    try {
      const a = await getAccount(ses);
      last = {
        at: Date.now(),
        reading: {
          max_24_hour_send: a.max24HourSend,
          sent_last_24_hours: a.sentLast24Hours,
          max_send_rate: a.maxSendRate,
          read_at: new Date().toISOString(),
        },
      };
    } catch (err) {
      logger.warn({ err }, "provider GetAccount failed; the overview shows no provider quota");
      last = { at: Date.now(), reading: null };
    }
  };
  return async (): Promise<ProviderQuotaReading | null> => {
    if (!last || Date.now() - last.at >= refreshMs) {
      inFlight ??= refresh().finally(() => (inFlight = null));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        inFlight,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs).unref())),
      ]).finally(() => clearTimeout(timer));
    }
    return last?.reading ?? null;
  };
}
