import type { Db } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import type { TxtLookup } from "./dns-check";
import type { IdentityProvider } from "./provider-port";

/** What the /domains use cases work with; each takes the part it needs. */
export interface DomainDeps {
  db: Db;
  provider: IdentityProvider;
  logger: Logger;
  /** DNS TXT lookups (the DMARC record, which the provider does not check). */
  resolveTxt: TxtLookup;
}
