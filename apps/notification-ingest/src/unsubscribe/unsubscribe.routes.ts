import { isUuid } from "@emailsvc/contracts";
import { Router, type Response } from "express";
import { escapeHtml, verifyUnsubscribe } from "@emailsvc/content";
import { type Db, findUnsubscribeTarget, recordUnsubscribe } from "@emailsvc/db";
import { methodNotAllowed } from "@emailsvc/http";

const page = (res: Response, status: number, title: string, body: string): void => {
  res
    .status(status)
    .set({
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Robots-Tag": "noindex",
    })
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
        `<title>${title}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem">` +
        `<h1 style="font-size:1.4rem">${title}</h1>${body}</body></html>`,
    );
};

const unsubscribed = (res: Response, recipient: string): void =>
  page(res, 200, "You are unsubscribed", `<p>${escapeHtml(recipient)} gets no more of these emails.</p>`);

const INVALID = "<p>This unsubscribe link is not valid. Use the link in the email you received.</p>";

/** The activity the link was written for, or null when the link is not one we signed. */
async function recipientOf(db: Db, secret: string, id: string, sig: unknown) {
  if (!isUuid(id) || typeof sig !== "string" || !verifyUnsubscribe(secret, id, sig)) return null;
  return findUnsubscribeTarget(db, id);
}

/**
 * The unsubscribe link of bulk emails (the List-Unsubscribe header and the footer, `unsubscribeUrl`):
 *   POST /t/u/:id?sig=…  unsubscribes at once: RFC 8058's one-click POST (`List-Unsubscribe=One-Click`), which
 *                        mailbox providers send from their own unsubscribe button, and the page's form;
 *   GET  /t/u/:id?sig=…  only asks: a GET must not unsubscribe, or every link scanner that opens it would.
 * The recipient is added to the project's suppressions with reason `unsubscribed` (spec 1.7: skipped from then
 * on) and its lead is marked unsubscribed (no later campaign takes it). A link we did not sign, or whose email is unknown, gets a 400 page and changes nothing.
 */
export function unsubscribeRouter(deps: { db: Db; secret: string }): Router {
  const r = Router();
  r.get("/t/u/:id", async (req, res) => {
    const found = await recipientOf(deps.db, deps.secret, req.params.id, req.query.sig);
    if (!found) return page(res, 400, "Invalid link", INVALID);
    if (found.suppressed) return unsubscribed(res, found.recipient);
    page(
      res,
      200,
      "Unsubscribe",
      `<p>Stop sending these emails to ${escapeHtml(found.recipient)}?</p>` +
        `<form method="post"><button type="submit" name="List-Unsubscribe" value="One-Click">Unsubscribe</button></form>`,
    );
  });
  r.post("/t/u/:id", async (req, res) => {
    const found = await recipientOf(deps.db, deps.secret, req.params.id, req.query.sig);
    if (!found) return page(res, 400, "Invalid link", INVALID);
    await recordUnsubscribe(deps.db, found.project_id, req.params.id, found.recipient);
    unsubscribed(res, found.recipient);
  });
  r.all("/t/u/:id", methodNotAllowed("GET", "HEAD", "POST"));
  return r;
}
