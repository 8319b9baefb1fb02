import type { Db } from "@emailsvc/db";
import type { TemplateCache } from "@emailsvc/sending";

/** What the admin API's campaign use cases need. */
export interface CampaignDeps {
  db: Db;
  templateCache: TemplateCache;
  /** The base of the unsubscribe links (PUBLIC_BASE_URL): RFC 8058 one-click needs HTTPS. */
  publicBaseUrl: string;
  /** NODE_ENV=production: an unsubscribe link without HTTPS is then a blocking pre-flight error. */
  production: boolean;
  /** Publishes the outbox rows just committed (a campaign.trigger-requested for campaign-dispatcher). */
  kickOutbox: () => void;
}
