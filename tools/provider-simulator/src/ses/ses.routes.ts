import express, { type NextFunction, type Request, type Response, Router } from "express";
import type { SimContext } from "../context";
import {
  createEmailIdentity,
  deleteEmailIdentity,
  getAccount,
  getEmailIdentity,
  putMailFromAttributes,
} from "./identities";
import { sendEmail, takeFault } from "./send-email";
import { SesError, sendSesError, sendSesOk } from "./ses-errors";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The SES v2 REST routes the AWS SDK calls (restJson1 under /v2/email). */
export function sesRoutes(ctx: SimContext): Router {
  const r = Router();
  // The SDK sends JSON; accept it whatever the content-type says. Raw messages arrive base64 (≤ 40 MB in SES).
  r.use(express.json({ type: () => true, limit: "60mb", strict: false }));
  r.use(async (_req, _res, next) => {
    const ms = ctx.state.config.latencyMs;
    if (ms > 0) await sleep(ms);
    next();
  });

  const handle =
    (operation: string, fn: (req: Request) => unknown | Promise<unknown>) =>
    async (req: Request, res: Response): Promise<void> => {
      try {
        if (operation !== "SendEmail") {
          const fault = takeFault(ctx, operation);
          if (fault) throw fault;
        }
        sendSesOk(res, await fn(req));
      } catch (err) {
        if (err instanceof SesError) return sendSesError(res, err.status, err.errorType, err.message);
        ctx.logger.error({ err, operation }, "simulator SES handler failed");
        sendSesError(res, 500, "InternalFailure", "The simulator failed to process the request.");
      }
    };
  const param = (req: Request, name: string) => String(req.params[name] ?? "");

  r.post(
    "/email/outbound-emails",
    handle("SendEmail", (req) => sendEmail(ctx, req.body ?? {})),
  );
  r.post(
    "/email/identities",
    handle("CreateEmailIdentity", (req) => createEmailIdentity(ctx, req.body ?? {})),
  );
  r.get(
    "/email/identities/:identity",
    handle("GetEmailIdentity", (req) => getEmailIdentity(ctx, param(req, "identity"))),
  );
  r.delete(
    "/email/identities/:identity",
    handle("DeleteEmailIdentity", (req) => deleteEmailIdentity(ctx, param(req, "identity"))),
  );
  r.put(
    "/email/identities/:identity/mail-from",
    handle("PutEmailIdentityMailFromAttributes", (req) =>
      putMailFromAttributes(ctx, param(req, "identity"), req.body),
    ),
  );
  r.get(
    "/email/account",
    handle("GetAccount", () => getAccount(ctx)),
  );
  r.all("/{*rest}", (req, res) =>
    sendSesError(
      res,
      404,
      "UnknownOperationException",
      `The provider simulator does not implement ${req.method} ${req.originalUrl}`,
    ),
  );
  // Body parse failures (malformed JSON, too large) in the SES error shape.
  r.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err as { status?: number; message?: string };
    sendSesError(res, e.status ?? 400, "BadRequestException", e.message ?? "Bad request");
  });
  return r;
}
