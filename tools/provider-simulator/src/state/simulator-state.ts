import { SendRateTracker } from "./send-rate";
import type { InjectedInbound, NotificationRecord, RuntimeConfig, SimIdentity, SimMessage } from "./types";

const MAX_NOTIFICATIONS_KEPT = 20_000;

/** Everything the simulator remembers; in memory only, reset between tests through the control API. */
export class SimulatorState {
  readonly messages: SimMessage[] = [];
  readonly messagesById = new Map<string, SimMessage>();
  readonly identities = new Map<string, SimIdentity>();
  readonly inbound: InjectedInbound[] = [];
  readonly notifications: NotificationRecord[] = [];
  readonly sendRate = new SendRateTracker();
  notificationCounts = { delivered: 0, failed: 0, skipped: 0 };

  constructor(public config: RuntimeConfig) {}

  addMessage(m: SimMessage): void {
    this.messages.push(m);
    this.messagesById.set(m.id, m);
  }

  clearMessages(): void {
    this.messages.length = 0;
    this.messagesById.clear();
  }

  getIdentity(identity: string): SimIdentity | undefined {
    return this.identities.get(identity.toLowerCase());
  }

  addNotification(n: NotificationRecord): void {
    this.notifications.push(n);
    if (this.notifications.length > MAX_NOTIFICATIONS_KEPT) this.notifications.splice(0, 1000);
  }

  /** Whether `address` may send: its own identity or its domain's is verified. */
  isSenderVerified(address: string): boolean {
    const email = address.toLowerCase();
    const domain = email.split("@")[1] ?? "";
    return [email, domain].some((id) => this.identities.get(id)?.verificationStatus === "SUCCESS");
  }

  resetAll(): void {
    this.clearMessages();
    this.identities.clear();
    this.inbound.length = 0;
    this.notifications.length = 0;
    this.notificationCounts = { delivered: 0, failed: 0, skipped: 0 };
    this.sendRate.reset();
  }
}
