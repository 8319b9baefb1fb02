import type { Server } from "node:http";
import type { Express } from "express";
import type { Logger } from "@emailsvc/observability";

export interface Lifecycle {
  /** Starts an HTTP server; it is closed first on shutdown (stop taking work). */
  listen(app: Express, port: number, host?: string): Promise<Server>;
  /** Registers a closer; closers run in registration order after the servers are closed. */
  onShutdown(name: string, close: () => Promise<unknown> | unknown): void;
  isAcceptingTraffic(): boolean;
  shutdown(reason: string): Promise<void>;
  /** SIGTERM/SIGINT → graceful shutdown, forced exit after the timeout. */
  installSignalHandlers(): void;
}

export function createLifecycle(opts: {
  logger: Logger;
  timeoutMs: number;
  exit?: (code: number) => void;
}): Lifecycle {
  const servers: Server[] = [];
  const closers: { name: string; close: () => Promise<unknown> | unknown }[] = [];
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let accepting = true;
  let shuttingDown: Promise<void> | null = null;

  async function closeServer(server: Server): Promise<void> {
    await new Promise<void>((resolve) => {
      // Keep-alive sockets would hold close() open: close the idle ones now and each one that turns idle
      // after finishing its in-flight request (it answered with `Connection: close`, see below).
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.close(() => {
        clearInterval(sweep);
        resolve();
      });
      server.closeIdleConnections();
    });
  }

  async function run(reason: string): Promise<void> {
    accepting = false;
    opts.logger.info({ reason }, "shutting down");
    await Promise.all(servers.map(closeServer));
    for (const c of closers) {
      try {
        await c.close();
        opts.logger.debug({ closer: c.name }, "closed");
      } catch (err) {
        opts.logger.error({ err, closer: c.name }, "error while closing");
      }
    }
    opts.logger.info("shutdown complete");
  }

  return {
    async listen(app, port, host = "0.0.0.0") {
      const server = await new Promise<Server>((resolve, reject) => {
        const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
        s.on("error", reject);
      });
      server.keepAliveTimeout = 65_000; // longer than typical load balancer idle timeouts
      server.on("request", (_req, res) => {
        if (!accepting) res.setHeader("Connection", "close");
      });
      servers.push(server);
      opts.logger.info({ port, host }, "listening");
      return server;
    },
    onShutdown(name, close) {
      closers.push({ name, close });
    },
    isAcceptingTraffic: () => accepting,
    shutdown(reason) {
      shuttingDown ??= run(reason);
      return shuttingDown;
    },
    installSignalHandlers() {
      let started = false;
      const handle = (signal: string) => {
        // Ctrl-C on `pnpm start` reaches a service twice, SIGINT from the terminal and SIGTERM from the stack
        // that stops its children, and a supervisor may repeat a signal: each later one is only logged. With
        // `once` handlers a repeated signal found none and its default action ended the process mid-shutdown
        // (in-flight sends cut off, no broker close).
        if (started) {
          opts.logger.info({ signal }, "shutdown already under way");
          return;
        }
        started = true;
        const timer = setTimeout(() => {
          opts.logger.error({ timeoutMs: opts.timeoutMs }, "graceful shutdown timed out; forcing exit");
          exit(1);
        }, opts.timeoutMs);
        timer.unref();
        void this.shutdown(signal).then(
          () => exit(0),
          () => exit(1),
        );
      };
      process.on("SIGTERM", () => handle("SIGTERM"));
      process.on("SIGINT", () => handle("SIGINT"));
    },
  };
}

/** Runs a service's main(); a bad environment prints the readable list and exits 1 without a stack. */
export function runMain(main: () => Promise<unknown>): void {
  main().catch((err: unknown) => {
    if (err instanceof Error && err.name === "EnvError") {
      process.stderr.write(`${err.message}\n`);
    } else {
      process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    process.exit(1);
  });
}
