import { randomBytes } from "node:crypto";
import {
  classifyProviderError,
  createDomainIdentity,
  createEmailAddressIdentity,
  type createSesClient,
  deleteIdentity,
  getIdentity,
  setMailFromDomain,
} from "@emailsvc/provider";

type Ses = ReturnType<typeof createSesClient>;

/** The identity calls this service makes (only the domain-service talks to the provider's identity APIs). */
export interface IdentityProvider {
  region: string;
  /** `created`: false when the provider already had this identity (registered again after a delete). */
  createDomain(
    domain: string,
  ): Promise<{ verificationToken: string; dkimTokens: string[]; created: boolean }>;
  setMailFrom(domain: string, mailFromDomain: string): Promise<void>;
  get(identity: string): Promise<{
    verificationStatus: string;
    dkimStatus: string;
    mailFromStatus: string;
    verifiedForSending: boolean;
  }>;
  delete(identity: string): Promise<void>;
  createEmail(email: string): Promise<void>;
}

const isAlreadyExists = (err: unknown) => (err as { name?: string })?.name === "AlreadyExistsException";

export function sesIdentityProvider(ses: Ses, region: string): IdentityProvider {
  return {
    region,
    async createDomain(domain) {
      try {
        const r = await createDomainIdentity(ses, domain);
        // SES v2 verifies domains through Easy DKIM and returns no TXT token; the `_amazonses` record then
        // carries a random token of ours (harmless, and the record set stays the seven of spec 4.10).
        return {
          verificationToken: r.verificationToken ?? randomBytes(32).toString("base64"),
          dkimTokens: r.dkimTokens,
          created: true,
        };
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        // Registered again after a delete, or by this account before: reuse the provider's identity.
        const existing = await getIdentity(ses, domain);
        return {
          verificationToken: randomBytes(32).toString("base64"),
          dkimTokens: existing.dkimTokens,
          created: false,
        };
      }
    },
    async setMailFrom(domain, mailFrom) {
      await setMailFromDomain(ses, domain, mailFrom);
    },
    get: (identity) => getIdentity(ses, identity),
    async delete(identity) {
      await deleteIdentity(ses, identity);
    },
    async createEmail(email) {
      try {
        await createEmailAddressIdentity(ses, email);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    },
  };
}

/**
 * The provider refused the request's content (a name it does not accept). By error name only: SES answers
 * HTTP 400 for account problems too (LimitExceeded, AccountSuspended), and those are not the client's.
 */
export const isProviderBadRequest = (err: unknown): boolean =>
  (err as { name?: string })?.name === "BadRequestException";

/** The identity does not exist at the provider. */
export const isProviderNotFound = (err: unknown): boolean =>
  (err as { name?: string })?.name === "NotFoundException";

export { classifyProviderError };
