import type { Logger } from "@emailsvc/observability";
import type { Notifier } from "./notifications/notifier";
import type { SimulatorState } from "./state/simulator-state";
import type { S3Target } from "./control/inbound-store";

/** What route handlers share; built once by createSimulator. */
export interface SimContext {
  state: SimulatorState;
  notifier: Notifier;
  logger: Logger;
  region: string;
  accountId: string;
  /** Resolved at start() when the port is chosen by the OS. */
  publicUrl(): string;
  s3: S3Target | null;
  inboundTopicArn: string;
}

/** `"Name" <a@b.c>` → `a@b.c`. */
export function bareAddress(addr: string): string {
  const m = /<([^>]+)>/.exec(addr);
  return (m?.[1] ?? addr).trim();
}
