import type { Redis } from "ioredis";
import type { Db } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import type { ProjectId } from "@emailsvc/contracts";
import type { SignInConfig } from "../accounts/sign-in";

/** What the invitation use cases need (a subset of Deps, so a test can build it by hand). */
export interface InvitationsDeps {
  db: Db;
  /** the token-guessing throttle's counters (the sign-in throttle's Redis) */
  redis: Pick<Redis, "eval" | "get">;
  logger: Logger;
  /** Publishes the invitation email's outbox row just committed. */
  kickOutbox: () => void;
  /** the session an accepted invitation starts, and the throttle's budget per address and window */
  signIn: SignInConfig;
  secureCookies: boolean | "auto";
  config: {
    /** DASHBOARD_INVITE_FROM; none: no email, the inviter gets the link */
    from?: { name: string | null; email: string } | undefined;
    /** DASHBOARD_INVITE_PROJECT_ID; none: the project holding `from` as a verified sender */
    projectId?: ProjectId | undefined;
    ttlHours: number;
    /** DASHBOARD_PUBLIC_URL; none: the admin listener's /dashboard as the inviter's browser reached it */
    publicUrl?: string | undefined;
  };
}
