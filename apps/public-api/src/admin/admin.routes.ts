import { Router } from "express";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import {
  createProject,
  decryptSecret,
  listProjectDeliveries,
  regenerateApiKey,
  senderOwnedByAnotherProject,
  type Db,
} from "@emailsvc/db";
import { z } from "zod";
import { asciiDomainAddress, projectIdOf, type ProjectId } from "@emailsvc/contracts";
import {
  addSenderSchema,
  createProjectSchema,
  keyModeSchema,
  listProjectsQuery,
  templateSchema,
  updateProjectSchema,
  updateTemplateSchema,
} from "./admin.schemas";
import { adminOpenApi } from "./admin.openapi";
import { adminCampaignsRouter } from "../campaigns/admin-campaigns.routes";
import { adminShopsRouter } from "../shops/admin-shops.routes";
import { adminLeadsRouter } from "../leads/admin-leads.routes";
import { adminInboundRouter } from "../threads/admin-inbound.routes";
import { redeliverWebhook } from "../webhooks/redeliver-webhook";
import type { CampaignDeps } from "../campaigns/campaign-deps";

export interface AdminDeps {
  db: Db;
  encryptionKey: string;
  kickOutbox?: () => void;
  /** Called after a template edit, so this replica's template cache does not serve the old HTML. */
  onTemplateChanged?: (projectId: ProjectId, templateId: string) => void;
  /** Called after a key was regenerated, so no replica's key cache accepts the old key. */
  onKeysChanged?: (projectId: ProjectId) => Promise<void>;
  /** The campaign routes' own needs (template cache, the unsubscribe links' base); none: no campaign routes. */
  campaigns?: Omit<CampaignDeps, "db" | "kickOutbox">;
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

/** A page's position: the last project's creation time and id (ties broken by id), opaque to the caller. */
function projectCursor(p: { createdAt: Date; id: string }): string {
  return Buffer.from(`${p.createdAt.toISOString()}|${p.id}`).toString("base64url");
}

function readProjectCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const createdAt = new Date(at ?? "");
  if (!id || !uuid.safeParse(id).success || Number.isNaN(createdAt.getTime()))
    throw new AppError(ErrorCode.VALIDATION, "cursor: is not a next_cursor this list gave");
  return { createdAt, id };
}

/** The admin API's project resolution: a URL's id becomes a ProjectId once the project is found. */
async function findProject(db: Db, projectId: string): Promise<ProjectRow & { id: ProjectId }> {
  const p = uuid.safeParse(projectId).success
    ? await db.prisma.project.findUnique({ where: { id: projectId } })
    : null;
  if (!p) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
  return { ...p, id: projectIdOf(p.id) };
}

/** Internal admin API: projects, keys, templates and local verified senders. Guarded by adminAccess (accounts/admin-access.ts): the admin token or a session and its role. */
const DELIVERY_STATUSES = ["pending", "failed", "succeeded", "exhausted", "skipped"] as const;
/** One project's deliveries, optionally of one status (each given once: a repeated parameter is an array). */
const deliveryListQuery = z.object({
  project_id: z.uuid({ error: "project_id must be a project UUID" }),
  status: z
    .enum(DELIVERY_STATUSES, { error: `status must be one of ${DELIVERY_STATUSES.join(", ")}` })
    .optional(),
});

export function adminRouter(deps: AdminDeps): Router {
  const { db } = deps;
  const r = Router();

  r.get("/openapi.json", (_req, res) => {
    res.json(adminOpenApi());
  });

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
    const after = query.cursor ? readProjectCursor(query.cursor) : null;
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
      next_cursor: rows.length > query.limit && last ? projectCursor(last) : null,
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

  r.get("/projects/:projectId/templates", async (req, res) => {
    const project = await findProject(db, req.params.projectId);
    const rows = await db.prisma.template.findMany({
      where: { projectId: project.id },
      orderBy: { internalId: "asc" },
    });
    res.json({ success: true, templates: rows.map(templateView) });
  });

  r.post("/projects/:projectId/templates", async (req, res) => {
    const body = parseInput(templateSchema, req.body);
    const project = await findProject(db, req.params.projectId);
    const template = await db.prisma.$transaction(async (tx) => {
      // Per-project auto-increment: the counter row is locked by the UPDATE, so concurrent creates serialize.
      const { templateSeq } = await tx.project.update({
        where: { id: project.id },
        data: { templateSeq: { increment: 1 } },
        select: { templateSeq: true },
      });
      return tx.template.create({
        data: {
          projectId: project.id,
          internalId: templateSeq,
          name: body.name,
          subject: body.subject,
          html: body.html,
          text: body.text ?? null,
        },
      });
    });
    res.status(201).json({ success: true, template: templateView(template) });
  });

  r.put("/projects/:projectId/templates/:templateId", async (req, res) => {
    const body = parseInput(updateTemplateSchema, req.body);
    const project = await findProject(db, req.params.projectId);
    const existing = uuid.safeParse(req.params.templateId).success
      ? await db.prisma.template.findFirst({ where: { projectId: project.id, id: req.params.templateId } })
      : null;
    if (!existing) throw new AppError(ErrorCode.NOT_FOUND, "Template not found");
    const t = await db.prisma.template.update({ where: { id: existing.id }, data: body });
    deps.onTemplateChanged?.(project.id, t.id);
    res.json({ success: true, template: templateView(t) });
  });

  // Local use: a sender address marked verified without the provider round trip (dev stack, demos, tests).
  r.post("/projects/:projectId/senders", async (req, res) => {
    const body = parseInput(addSenderSchema, req.body);
    const project = await findProject(db, req.params.projectId);
    const email = asciiDomainAddress(body.email);
    // The domain-service's ownership rule: an address (or its domain) another project has is not added here as
    // verified, or that project's sender could be used by this one.
    if (await senderOwnedByAnotherProject(db, project.id, email))
      throw new AppError(ErrorCode.CONFLICT, `${email} is already registered by another project`);
    const sender = await db.prisma.senderProfile.upsert({
      where: { projectId_senderEmail: { projectId: project.id, senderEmail: email } },
      create: {
        projectId: project.id,
        senderEmail: email,
        senderName: body.name,
        emailVerified: true,
        active: true,
      },
      update: { senderName: body.name, emailVerified: true, active: true },
    });
    res.status(201).json({
      success: true,
      sender: {
        id: sender.id,
        sender_email: sender.senderEmail,
        sender_name: sender.senderName,
        email_verified: sender.emailVerified,
      },
    });
  });

  // Re-send a client webhook delivery (e.g. one that exhausted its 5 attempts): see redeliverWebhook.
  r.post("/webhook-deliveries/:deliveryId/redeliver", async (req, res) => {
    const id = req.params.deliveryId;
    await redeliverWebhook(db, id);
    deps.kickOutbox?.();
    res.json({ success: true, delivery_id: id, status: "pending" });
  });

  r.use(adminLeadsRouter({ db }));
  r.use(adminInboundRouter({ db }));
  r.use(adminShopsRouter({ db, encryptionKey: deps.encryptionKey }));
  if (deps.campaigns)
    r.use(adminCampaignsRouter({ ...deps.campaigns, db, kickOutbox: () => deps.kickOutbox?.() }));

  r.get("/webhook-deliveries", async (req, res) => {
    const { project_id: projectId, status } = parseInput(deliveryListQuery, req.query);
    const project = await findProject(db, projectId);
    const deliveries = await listProjectDeliveries(db, project.id, status ?? null);
    res.json({ success: true, deliveries });
  });

  return r;
}

type TemplateRow = Awaited<ReturnType<Db["prisma"]["template"]["findFirstOrThrow"]>>;
function templateView(t: TemplateRow) {
  return {
    template_id: t.id,
    template_internal_id: t.internalId,
    name: t.name,
    subject: t.subject,
    html: t.html,
    text: t.text,
    updated_at: t.updatedAt.toISOString(),
  };
}
