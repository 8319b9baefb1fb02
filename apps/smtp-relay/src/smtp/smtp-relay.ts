import type { Socket } from "node:net";
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import { isEmailAddress } from "@emailsvc/contracts";
import { checkSenderVerified, senderNotVerified } from "@emailsvc/sending";
import type { Deps } from "../deps";
import { acceptSmtpMessage, type RelayAuth, type RelayOutcome } from "../relay/accept-smtp-message";
import { createAuthThrottle } from "./auth-throttle";
import { authenticate } from "./authenticate";
import { installEnhancedStatusCodes } from "./enhanced-status";
import { replyForError, smtpError, temporaryFailure } from "./smtp-errors";

export interface SmtpRelay {
  /** Starts the listeners; resolves with their ports (tlsPort null without a certificate or SMTP_TLS_PORT=0). */
  listen(): Promise<{ port: number | null; tlsPort: number | null }>;
  /** Stops accepting, lets messages in DATA finish (up to `graceMs`), then closes what is left. */
  close(): Promise<void>;
}

const authOf = (session: SMTPServerSession): RelayAuth => session.user as RelayAuth;

/** How long a connection trusts a MAIL FROM sender it saw verified (one database round trip less a message). */
const SENDER_RECHECK_MS = 30_000;
/** Per connection (session id; dropped when it closes): `project\0sender` → when it was seen verified. */
const sendersBySession = new Map<string, Map<string, number>>();
function verifiedSenders(session: SMTPServerSession): Map<string, number> {
  let m = sendersBySession.get(session.id);
  if (!m) sendersBySession.set(session.id, (m = new Map()));
  return m;
}

/** The 250 text: the activity the message became (and how many more when it had several `to` recipients). */
export function okText(outcome: RelayOutcome): string {
  if (outcome.kind === "suppressed")
    return `2.0.0 Not sent: ${outcome.recipient} is on the suppression list (${outcome.reason})`;
  if (outcome.kind === "replayed")
    return `2.0.0 Already queued${outcome.emailMessageId ? ` as message ${outcome.emailMessageId}` : ""}`;
  const [first, ...rest] = outcome.activityIds;
  return `2.0.0 queued as ${first}${rest.length ? ` (+${rest.length} more)` : ""}`;
}

/**
 * The submission listeners (smtp-server): STARTTLS on SMTP_PORT, implicit TLS on SMTP_TLS_PORT (with a
 * certificate; without one, the plain port only and no STARTTLS: local development). The handlers are the
 * relay's gates in SMTP order: AUTH (API key), MAIL FROM (verified sender), RCPT TO (syntax, and 452 4.5.3 past
 * SMTP_MAX_RECIPIENTS), DATA (size: smtp-server answers 552 5.3.4 past SMTP_MAX_MESSAGE_BYTES,
 * which EHLO announces; then the send model). The answer to DATA is sent only after the accept statement
 * committed, so nothing acknowledged is lost.
 */
export function createSmtpRelay(deps: Deps, opts: { graceMs?: number } = {}): SmtpRelay {
  installEnhancedStatusCodes();
  const { env, logger } = deps;
  const throttle = createAuthThrottle({
    maxFailures: env.SMTP_AUTH_MAX_FAILURES,
    windowMs: env.SMTP_AUTH_WINDOW_MS,
  });
  const messages = deps.metrics.counter("smtp_messages_total", "Messages received over SMTP", ["outcome"]);
  const perIp = new Map<string, Set<string>>();

  const options = (secure: boolean): SMTPServerOptions => ({
    secure,
    name: env.SMTP_SERVER_NAME,
    banner: "emailsvc SMTP relay",
    size: env.SMTP_MAX_MESSAGE_BYTES,
    maxClients: env.SMTP_MAX_CLIENTS,
    socketTimeout: env.SMTP_IDLE_TIMEOUT_MS,
    closeTimeout: opts.graceMs ?? 20_000,
    authMethods: ["PLAIN", "LOGIN"],
    // authenticate() applies the TLS rule itself, so it holds on the plain port without STARTTLS too.
    allowInsecureAuth: true,
    disableReverseLookup: true,
    // No STARTTLS without a certificate: smtp-server would offer its own built-in self-signed one.
    disabledCommands: deps.tls ? [] : ["STARTTLS"],
    ...(deps.tls ? { cert: deps.tls.cert, key: deps.tls.key } : {}),
    logger: false,

    onConnect(session, callback) {
      const ip = session.remoteAddress;
      const open = perIp.get(ip) ?? new Set<string>();
      if (open.size >= env.SMTP_MAX_CONNECTIONS_PER_IP)
        return callback(smtpError(421, "4.7.0 Too many connections from your address; try again later"));
      open.add(session.id);
      perIp.set(ip, open);
      callback();
    },
    onClose(session) {
      sendersBySession.delete(session.id);
      const open = perIp.get(session.remoteAddress);
      open?.delete(session.id);
      if (open?.size === 0) perIp.delete(session.remoteAddress);
    },

    onAuth(auth, session, callback) {
      authenticate(deps, throttle, {
        username: auth.username,
        password: auth.password,
        ip: session.remoteAddress,
        secure: session.secure,
      }).then(
        (r) => (r.ok ? callback(null, { user: r.auth }) : callback(r.error)),
        () => callback(temporaryFailure()),
      );
    },

    onMailFrom(address, session, callback) {
      const sender = address.address;
      if (!sender || !isEmailAddress(sender))
        return callback(smtpError(550, "5.7.1 A verified sender address is required in MAIL FROM"));
      // A pooled client sends many messages from one sender over a connection: a sender this connection's
      // project had verified within SENDER_RECHECK_MS is not looked up again. The From: header is still checked
      // against the database with each message (acceptSmtpMessage), and it is what the email is sent from.
      const verified = verifiedSenders(session);
      const cacheKey = `${authOf(session).projectId}\0${sender}`;
      const at = verified.get(cacheKey);
      if (at !== undefined && Date.now() - at < SENDER_RECHECK_MS) return callback();
      checkSenderVerified(deps.db, authOf(session).projectId, sender).then(
        (v) => {
          if (!v.verified) return callback(smtpError(550, `5.7.1 ${senderNotVerified(sender).message}`));
          verified.set(cacheKey, Date.now());
          callback();
        },
        (err: unknown) => {
          logger.error({ err }, "smtp: sender check failed");
          callback(temporaryFailure());
        },
      );
    },

    onRcptTo(address, session, callback) {
      if (!isEmailAddress(address.address))
        return callback(smtpError(553, `5.1.3 Invalid recipient address ${address.address}`));
      // RFC 5321 4.5.3.1.10: past the limit, 452 per RCPT; the client sends to the first ones and retries the rest.
      if (session.envelope.rcptTo.length >= env.SMTP_MAX_RECIPIENTS)
        return callback(
          smtpError(452, `4.5.3 Too many recipients: at most ${env.SMTP_MAX_RECIPIENTS} a message`),
        );
      callback();
    },

    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => {
        // Past the limit smtp-server answers 552 5.3.4 itself; keep nothing more in memory.
        if (!stream.sizeExceeded) chunks.push(c);
      });
      stream.on("end", () => {
        if (stream.sizeExceeded) {
          messages.inc({ outcome: "too_large" });
          return callback(
            smtpError(552, `5.3.4 Message exceeds the maximum size of ${env.SMTP_MAX_MESSAGE_BYTES} bytes`),
          );
        }
        acceptSmtpMessage(deps, {
          auth: authOf(session),
          recipients: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          sessionId: session.id,
        }).then(
          (outcome) => {
            messages.inc({ outcome: outcome.kind });
            callback(null, okText(outcome));
          },
          (err: unknown) => {
            const reply = replyForError(err);
            messages.inc({ outcome: reply.responseCode >= 500 ? "refused" : "deferred" });
            if (reply.responseCode < 500) logger.error({ err, session: session.id }, "smtp: accept failed");
            callback(reply);
          },
        );
      });
    },
  });

  const servers: { server: SMTPServer; port: number }[] = [];
  servers.push({ server: new SMTPServer(options(false)), port: env.SMTP_PORT });
  if (deps.tls && env.SMTP_TLS_PORT)
    servers.push({ server: new SMTPServer(options(true)), port: env.SMTP_TLS_PORT });

  // A connection open past SMTP_MAX_CONNECTION_MS is closed whatever it is doing (a slow drip keeps resetting
  // the idle timeout). A message cut mid-DATA was not answered, so the client retries it.
  const sockets = new Set<Socket>();
  for (const { server } of servers) {
    const net = (server as unknown as { server: import("node:net").Server }).server;
    net.on("connection", (socket: Socket) => {
      sockets.add(socket);
      const timer = setTimeout(() => socket.destroy(), env.SMTP_MAX_CONNECTION_MS);
      timer.unref();
      socket.once("close", () => {
        clearTimeout(timer);
        sockets.delete(socket);
      });
    });
    server.on("error", (err) => logger.warn({ err }, "smtp: connection error"));
  }

  return {
    async listen() {
      const ports = await Promise.all(
        servers.map(
          ({ server, port }) =>
            new Promise<number>((resolve, reject) => {
              const net = (server as unknown as { server: import("node:net").Server }).server;
              net.once("error", reject);
              server.listen(port, env.SMTP_HOST, () => {
                net.off("error", reject);
                const addr = net.address();
                resolve(typeof addr === "object" && addr ? addr.port : port);
              });
            }),
        ),
      );
      const plain = servers.findIndex((s) => !s.server.options.secure);
      const tls = servers.findIndex((s) => s.server.options.secure);
      const result = {
        port: plain >= 0 ? ports[plain]! : null,
        tlsPort: tls >= 0 ? ports[tls]! : null,
      };
      logger.info({ ...result, tls: Boolean(deps.tls) }, "smtp listening");
      // Not fatal: without TLS every AUTH is refused (530) unless from loopback in development, so nothing leaks.
      if (!deps.tls)
        logger.warn("smtp: no certificate (SMTP_TLS_CERT/SMTP_TLS_KEY): AUTH only from loopback");
      return result;
    },
    async close() {
      await Promise.all(servers.map(({ server }) => new Promise<void>((r) => server.close(() => r()))));
      for (const s of sockets) s.destroy();
    },
  };
}
