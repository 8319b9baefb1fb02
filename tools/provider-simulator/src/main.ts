import { createSimulator } from "./create-simulator";
import { readEnv } from "./env";

async function main(): Promise<void> {
  const env = readEnv();
  const sim = createSimulator({
    port: env.SIMULATOR_PORT,
    host: env.SIMULATOR_HOST,
    ...(env.SIMULATOR_PUBLIC_URL ? { publicUrl: env.SIMULATOR_PUBLIC_URL } : {}),
    notificationUrl: env.SIMULATOR_NOTIFICATION_URL ?? null,
    inboundNotificationUrl: env.SIMULATOR_INBOUND_URL ?? null,
    latencyMs: env.SIMULATOR_LATENCY_MS ?? 0,
    maxSendRate: env.SIMULATOR_MAX_SEND_RATE || null,
    s3: env.SIMULATOR_S3_ENDPOINT
      ? { endpoint: env.SIMULATOR_S3_ENDPOINT, bucket: env.SIMULATOR_S3_BUCKET }
      : null,
    enforceVerifiedSenders: env.SIMULATOR_ENFORCE_VERIFIED_SENDERS,
    ...(env.SIMULATOR_MAX_MESSAGES ? { maxMessagesKept: env.SIMULATOR_MAX_MESSAGES } : {}),
    region: env.AWS_REGION,
    logLevel: env.LOG_LEVEL,
  });
  await sim.start();
  // Once, however many signals come (Ctrl-C on `pnpm start` sends SIGINT, then the stack sends SIGTERM).
  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= sim.stop().finally(() => process.exit(0));
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
