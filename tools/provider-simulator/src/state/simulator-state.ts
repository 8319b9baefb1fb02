import { SendRateTracker } from "./send-rate";
import type {
  InjectedInbound,
  NotificationRecord,
  RuntimeConfig,
  SimBounce,
  SimIdentity,
  SimMessage,
  SimSubscription,
} from "./types";

const MAX_NOTIFICATIONS_KEPT = 20_000;

/** Everything the simulator remembers; in memory only, reset between tests through the control API. */
export class SimulatorState {
  readonly messages: SimMessage[] = [];
  readonly messagesById = new Map<string, SimMessage>();
  readonly identities = new Map<string, SimIdentity>();
  readonly inbound: InjectedInbound[] = [];
  readonly bounces: SimBounce[] = [];
  readonly subscriptions: SimSubscription[] = [];
  readonly notifications: NotificationRecord[] = [];
  readonly sendRate = new SendRateTracker();
  notificationCounts = { delivered: 0, failed: 0, skipped: 0 };
  /**
   * Messages accepted since the last reset, all of them and per kind, kept apart from `messages`, which holds only
   * the latest `config.maxMessagesKept`: holding every message (its MIME included) made the simulator slower as a
   * run went on (the raw baseline measured after 100,000 sends was a fraction of the one before).
   */
  messageCount = 0;
  messageCountByKind: Record<SimMessage["kind"], number> = { email: 0, verification: 0 };

  constructor(public config: RuntimeConfig) {}

  addMessage(m: SimMessage): void {
    this.messages.push(m);
    this.messagesById.set(m.id, m);
    this.messageCount++;
    this.messageCountByKind[m.kind]++;
    const cap = Math.max(1, this.config.maxMessagesKept);
    if (this.messages.length > cap) {
      // drop a tenth more than needed at once, so dropping costs O(1) a message on average
      const drop = this.messages.length - cap + Math.floor(cap / 10);
      for (const old of this.messages.splice(0, Math.min(drop, this.messages.length - 1)))
        this.messagesById.delete(old.id);
    }
  }

  clearMessages(): void {
    this.messages.length = 0;
    this.messagesById.clear();
    this.messageCount = 0;
    this.messageCountByKind = { email: 0, verification: 0 };
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
    this.bounces.length = 0;
    this.subscriptions.length = 0;
    this.notifications.length = 0;
    this.notificationCounts = { delivered: 0, failed: 0, skipped: 0 };
    this.sendRate.reset();
  }
}
