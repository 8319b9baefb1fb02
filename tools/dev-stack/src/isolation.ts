import path from "node:path";

/** Where a stack keeps its rows, messages and send rate. */
export interface StackIsolation {
  databaseUrl: string;
  rabbitUrl: string;
  /** A vhost to make before the services start (a second stack's own); null when the URL was given or is `/`. */
  ownVhost: string | null;
  /** SEND_RATE_KEY for the services, when this stack needs its own. */
  sendRateKey: string | null;
}

/**
 * A second stack (STACK_STATE_DIR other than .local) keeps apart from the developer's: its own database, RabbitMQ
 * vhost and send-rate key, all named `emailsvc_<its folder's name>`, unless DATABASE_URL, RABBITMQ_URL or
 * SEND_RATE_KEY name others. Sharing the database, each stack's start re-keyed the one demo project under its own
 * secrets and the other stack's printed keys answered 401; sharing the vhost, each stack's workers took the
 * other's messages. The developer's own stack uses `emailsvc` and the vhost `/`.
 */
export function stackIsolation(localDir: string, root: string, env: NodeJS.ProcessEnv): StackIsolation {
  const own =
    path.resolve(localDir) === path.resolve(root, ".local")
      ? null
      : `emailsvc_${path
          .basename(localDir)
          .replace(/^\.+/, "")
          .replace(/[^a-zA-Z0-9]+/g, "_")
          .toLowerCase()}`.slice(0, 63);
  return {
    databaseUrl: env.DATABASE_URL ?? `postgresql://postgres@127.0.0.1:5432/${own ?? "emailsvc"}`,
    rabbitUrl: env.RABBITMQ_URL ?? `amqp://guest:guest@127.0.0.1:5672${own ? `/${own}` : ""}`,
    ownVhost: own && !env.RABBITMQ_URL ? own : null,
    sendRateKey: own && !env.SEND_RATE_KEY ? `${own}:send-rate` : null,
  };
}
