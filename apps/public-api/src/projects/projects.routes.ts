import { Router } from "express";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { createProject, decryptSecret, regenerateApiKey, type Db } from "@emailsvc/db";
import { z } from "zod";
import { projectIdOf, type ProjectId } from "@emailsvc/contracts";
import {
  createProjectSchema,
  keyModeSchema,
  listProjectsQuery,
  updateProjectSchema,
} from "./projects.schemas";
import { decodeCursor, encodeCursor } from "../listing/keyset-cursor";

export interface ProjectsDeps {
  db: Db;
  encryptionKey: string;
  /** Called after a key was regenerated, so no replica's key cache accepts the old key. */
  onKeysChanged?: (projectId: ProjectId) => Promise<void>;
}

const uuid = z.string().uuid();

type ProjectRow = Awaited<ReturnType<Db["prisma"]["project"]["findFirstOrThrow"]>>;

function projectView(p: ProjectRow) {
  return {
    id: p.id,
    name: p.name,
    webhook_url: p.webhookUrl,
    webhook_url_dev: p.webhookUrlDev,
    inbound_webhook_url: p.inboundWebhookUrl,
    inbound_webhook_url_dev: p.inboundWebhookUrlDev,
    default_timezone: p.defaultTimezone,
    on_send_unknown: p.onSendUnknown,
    auto_leads_subscribed: p.autoLeadsSubscribed,
    postal_address: p.postalAddress,
    require_signed_shop_webhooks: p.requireSignedShopWebhooks,
    send_rate_limit: p.sendRateLimit,
    daily_send_cap: p.dailySendCap,
    test_keys_test_data_only: p.testKeysTestDataOnly,
    // Since when the webhook-dispatcher has found the receiver failing (its deliveries deferred and probed one
    // at a time); null while it answers.
    webhook_failing_since: p.webhookFailingSince?.toISOString() ?? null,
    webhook_dev_failing_since: p.webhookDevFailingSince?.toISOString() ?? null,
    inbound_webhook_failing_since: p.inboundWebhookFailingSince?.toISOString() ?? null,
    inbound_webhook_dev_failing_since: p.inboundWebhookDevFailingSince?.toISOString() ?? null,
    total_sent: Number(p.totalSent),
    created_at: p.createdAt.toISOString(),
  };
}

function settingsData(body: z.output<typeof updateProjectSchema>) {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.webhook_url !== undefined ? { webhookUrl: body.webhook_url } : {}),
    ...(body.webhook_url_dev !== undefined ? { webhookUrlDev: body.webhook_url_dev } : {}),
    ...(body.inbound_webhook_url !== undefined ? { inboundWebhookUrl: body.inbound_webhook_url } : {}),
    ...(body.inbound_webhook_url_dev !== undefined
      ? { inboundWebhookUrlDev: body.inbound_webhook_url_dev }
      : {}),
    ...(body.default_timezone !== undefined ? { defaultTimezone: body.default_timezone } : {}),
    ...(body.on_send_unknown !== undefined ? { onSendUnknown: body.on_send_unknown } : {}),
    ...(body.auto_leads_subscribed !== undefined ? { autoLeadsSubscribed: body.auto_leads_subscribed } : {}),
    ...(body.postal_address !== undefined ? { postalAddress: body.postal_address } : {}),
    ...(body.require_signed_shop_webhooks !== undefined
      ? { requireSignedShopWebhooks: body.require_signed_shop_webhooks }
      : {}),
    ...(body.send_rate_limit !== undefined ? { sendRateLimit: body.send_rate_limit } : {}),
    ...(body.daily_send_cap !== undefined ? { dailySendCap: body.daily_send_cap } : {}),
    ...(body.test_keys_test_data_only !== undefined
      ? { testKeysTestDataOnly: body.test_keys_test_data_only }
      : {}),
  };
}

/** The admin API's project resolution: a URL's id becomes a ProjectId once the project is found. */
async function findProject(db: Db, projectId: string): Promise<ProjectRow & { id: ProjectId }> {
  const p = uuid.safeParse(projectId).success
    ? await db.prisma.project.findUnique({ where: { id: projectId } })
    : null;
  if (!p) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
  return { ...p, id: projectIdOf(p.id) };
}

/** The admin API's projects: create, list (keyset pages), settings, and the live and test keys (show, regenerate). */
export function projectsRouter(deps: ProjectsDeps): Router {
  const { db } = deps;
  const r = Router();

  r.post("/projects", async (req, res) => {
    const body = parseInput(createProjectSchema, req.body);
    const created = await createProject(
      db,
      { name: body.name, legacyLiveKey: body.legacy_live_key ?? false, ...settingsData(body) },
      deps.encryptionKey,
    );
    res.status(201).json({
      success: true,
      project: projectView(created.project),
      live_key: created.liveKey,
      test_key: created.testKey,
    });
  });

  // Keyset pages by (created_at, id): a page costs the same however far in, and a project created meanwhile is
  // neither skipped nor listed twice.
  r.get("/projects", async (req, res) => {
    const query = parseInput(listProjectsQuery, req.query);
    const after = query.cursor ? decodeCursor(query.cursor) : null;
    const rows = await db.prisma.project.findMany({
      ...(after
        ? {
            where: {
              OR: [
                { createdAt: { gt: after.createdAt } },
                { createdAt: after.createdAt, id: { gt: after.id } },
              ],
            },
          }
        : {}),
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    res.json({
      success: true,
      projects: page.map(projectView),
      next_cursor: rows.length > query.limit && last ? encodeCursor(last.createdAt, last.id) : null,
    });
  });

  r.get("/projects/:projectId", async (req, res) => {
    res.json({ success: true, project: projectView(await findProject(db, req.params.projectId)) });
  });

  r.patch("/projects/:projectId", async (req, res) => {
    const body = parseInput(updateProjectSchema, req.body);
    await findProject(db, req.params.projectId);
    const p = await db.prisma.project.update({
      where: { id: req.params.projectId },
      data: settingsData(body),
    });
    res.json({ success: true, project: projectView(p) });
  });

  // "Show" control of the integration settings: the plaintext of the active live and test keys.
  r.get("/projects/:projectId/keys", async (req, res) => {
    const project = await findProject(db, req.params.projectId);
    const keys = await db.prisma.apiKey.findMany({ where: { projectId: project.id, revokedAt: null } });
    const view = (mode: "live" | "test") => {
      const k = keys.find((x) => x.mode === mode);
      return k
        ? {
            key: decryptSecret(k.keyCiphertext, deps.encryptionKey),
            prefix: k.prefix,
            created_at: k.createdAt.toISOString(),
          }
        : null;
    };
    res.json({ success: true, project_id: project.id, live: view("live"), test: view("test") });
  });

  // Regenerating one mode's key invalidates its previous key at once and leaves the other mode untouched.
  r.post("/projects/:projectId/keys/:mode/regenerate", async (req, res) => {
    const mode = parseInput(keyModeSchema, req.params.mode);
    const project = await findProject(db, req.params.projectId);
    const key = await regenerateApiKey(db, project.id, mode, deps.encryptionKey);
    await deps.onKeysChanged?.(project.id);
    res.json({ success: true, project_id: project.id, mode, key });
  });

  return r;
}
