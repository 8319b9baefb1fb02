import type { RequestHandler } from "express";
import { isUuid } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { clientAddress } from "@emailsvc/http";
import type { Logger } from "@emailsvc/observability";
import { type Actor, isReadOnlyPost } from "../accounts/admin-access";
import { appendAudit } from "./audit.repo";

/** Last path words that are verbs: the action is the resource and the verb (`keys.live.regenerate`). */
const VERBS = new Set([
  "regenerate",
  "redeliver",
  "rotate-secret",
  "duplicate",
  "pause",
  "resume",
  "cancel",
  "trigger",
  "test-send",
  "verify",
  "resend",
  "accept",
  "send-test",
  "sign-out",
  "sign-out-everywhere",
  "preview",
]);
/** Collections whose members a path names by their name, not an id: the route shows this placeholder instead. */
const NAMED_AFTER: Record<string, string> = { domains: ":domain", "sender-addresses": ":email" };
const METHOD_VERB: Record<string, string> = {
  POST: "create",
  PUT: "update",
  PATCH: "update",
  DELETE: "delete",
};

/**
 * The action an admin request performs, from its path: ids dropped, the resource words joined, and the verb of
 * the method unless the path ends in one: `POST /admin/projects/:id/keys/live/regenerate` → `keys.live.regenerate`,
 * `PATCH /admin/projects/:id` → `project.update`, `PUT /admin/projects/:id/templates/:t` → `templates.update`.
 */
export function auditAction(
  method: string,
  path: string,
): { action: string; route: string; projectId: string | null } {
  const parts = path.split("/").filter(Boolean);
  let projectId: string | null = null;
  const words: string[] = [];
  const route: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    // an invitation link's token is a credential: never written to the log
    if (i === 1 && parts[0] === "invitations") {
      route.push(":token");
      continue;
    }
    // a domain or an address named in the path stands for its row as an id does: `domains.verify` for every domain
    const named = NAMED_AFTER[parts[i - 1] ?? ""];
    if (named) {
      route.push(named);
      continue;
    }
    if (isUuid(p) || /^\d+$/.test(p)) {
      if (parts[i - 1] === "projects" && projectId === null) projectId = p;
      route.push(":id");
      continue;
    }
    route.push(p);
    words.push(p);
  }
  if (words[0] === "projects" && words.length > 1) words.shift();
  else if (words[0] === "projects" && projectId) words[0] = "project";
  const last = words.at(-1);
  const action =
    last && VERBS.has(last)
      ? words.join(".")
      : [...words, METHOD_VERB[method] ?? method.toLowerCase()].join(".");
  return { action, route: `${method} /admin/${route.join("/")}`, projectId };
}

/**
 * Every change made through the admin API (every method but GET and HEAD) is written to the audit log once it is
 * answered: who (the user, or the admin token), what (the action and its route), which project, when, from where,
 * and the status it got, refusals included. Sign-in writes its own events (the actor is known only inside it).
 */
export function recordAudit(deps: { db: Db; logger: Logger }): RequestHandler {
  return (req, res, next) => {
    if (
      req.method === "GET" ||
      req.method === "HEAD" ||
      req.method === "OPTIONS" ||
      req.path === "/auth/sign-in" ||
      isReadOnlyPost(req.method, /^\/projects\/[^/]+(\/.*)?$/.exec(req.path)?.[1] ?? "")
    )
      return next();
    // read now: by the time the answer is sent a refused upload's socket may be gone
    const ip = clientAddress(req);
    const userAgent = req.header("user-agent") ?? null;
    // and the path: a route that throws reaches the app's error handler, where req.path is /admin/… again
    const a = auditAction(req.method, req.path);
    res.once("finish", () => {
      const actor = res.locals.actor as Actor | undefined;
      appendAudit(deps.db, {
        projectId: (res.locals.auditProjectId as string | undefined) ?? a.projectId,
        actorType: actor ? actor.type : "anonymous",
        actorId: actor?.type === "user" ? actor.user.id : null,
        actorEmail: actor?.type === "user" ? actor.user.email : null,
        // a route that names its event in words of its own (`user.invited`), and what it was about
        action: (res.locals.auditAction as string | undefined) ?? a.action,
        detail: (res.locals.auditDetail as Record<string, unknown> | undefined) ?? null,
        route: a.route,
        status: res.statusCode,
        ip,
        userAgent,
      }).catch((err: unknown) => deps.logger.error({ err, action: a.action }, "audit event not written"));
    });
    next();
  };
}
