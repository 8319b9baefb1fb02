import { isUuid, type ProjectId } from "@emailsvc/contracts";
import { Router } from "express";
import {
  cancelScheduledSend,
  countScheduledRecipients,
  type Db,
  findScheduledSend,
  scheduledSendIsTest,
  testKeysScoped,
  type ScheduledSendRow,
} from "@emailsvc/db";
import {
  apiKeyAuth,
  AppError,
  ErrorCode,
  getAuth,
  methodNotAllowed,
  type ApiKeyLookup,
} from "@emailsvc/http";

/**
 * Scheduled sends in the v1 API (design; the spec leaves it open):
 *   GET    /v1/scheduled-sends/:id   state (scheduled | sending | sent | cancelled | failed), times, recipient counts
 *   DELETE /v1/scheduled-sends/:id   cancel one that has not gone yet → 200 { success, status: "cancelled" };
 *                                    409 once the scheduler handed it over (or it was cancelled); 404 otherwise
 * Cancelling and the scheduler's claim lock the same row, so a send is either cancelled or sent, never both.
 * Live emails count against the monthly quota and the total-sent counter when they are accepted; cancelled,
 * they were never sent, so the count is given back (to the month it was taken from).
 */
export function scheduledSendsRouter(deps: { db: Db; lookupApiKey: ApiKeyLookup }): Router {
  const r = Router();
  const auth = apiKeyAuth(deps.lookupApiKey);

  /**
   * The key's project's scheduled send; for a test key of a project that scopes test keys to test data (issue 49),
   * only one of test sends: a live one is not found.
   */
  async function find(
    projectId: ProjectId,
    id: string,
    mode: "live" | "test" = "live",
  ): Promise<ScheduledSendRow> {
    const row = isUuid(id) ? await findScheduledSend(deps.db, projectId, id) : null;
    if (
      !row ||
      (mode === "test" &&
        (await testKeysScoped(deps.db, projectId)) &&
        !(await scheduledSendIsTest(deps.db, projectId, row.id)))
    )
      throw new AppError(ErrorCode.NOT_FOUND, "Scheduled send not found");
    return row;
  }

  r.get("/v1/scheduled-sends/:id", auth, async (req, res) => {
    const { projectId, mode } = getAuth(res);
    const row = await find(projectId, req.params.id as string, mode);
    const recipients = await countScheduledRecipients(deps.db, projectId, row.id);
    res.json({
      success: true,
      scheduled_send_id: row.id,
      status: row.status,
      scheduled_for: row.scheduled_for.toISOString(),
      scheduled_for_local: `${row.local_time} (${row.timezone})`,
      timezone: row.timezone,
      recipients,
      sent_at: row.sent_at?.toISOString() ?? null,
      cancelled_at: row.cancelled_at?.toISOString() ?? null,
    });
  });

  r.delete("/v1/scheduled-sends/:id", auth, async (req, res) => {
    const { projectId, mode } = getAuth(res);
    const row = await find(projectId, req.params.id as string, mode);
    const cancelled = await cancelScheduledSend(deps.db, projectId, row.id, row.created_at);
    if (cancelled === null) {
      const now = await find(projectId, row.id);
      throw new AppError(
        ErrorCode.CONFLICT,
        `Scheduled send cannot be cancelled: it is already ${now.status}`,
        { extra: { status: now.status } },
      );
    }
    res.json({ success: true, scheduled_send_id: row.id, status: "cancelled", cancelled_emails: cancelled });
  });
  r.all("/v1/scheduled-sends/:id", methodNotAllowed("GET", "HEAD", "DELETE"));
  return r;
}
