import { Router } from "express";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import type { Db } from "@emailsvc/db";
import type { ProjectId } from "@emailsvc/contracts";
import { z } from "zod";
import { sendTestTemplateSchema, templateSchema, updateTemplateSchema } from "./templates.schemas";
import { sendTestTemplate } from "./send-test-template";
import { projectOf } from "../projects/project-of";

export interface TemplatesDeps {
  db: Db;
  /** Called after a template edit, so this replica's template cache does not serve the old HTML. */
  onTemplateChanged?: (projectId: ProjectId, templateId: string) => void;
  /** Publishes a test send's outbox row just committed. */
  kickOutbox?: () => void;
}

const uuid = z.string().uuid();

/** The admin API's templates: list, create (per-project internal ids), update, send a test (members). */
export function templatesRouter(deps: TemplatesDeps): Router {
  const { db } = deps;
  const r = Router();

  r.get("/projects/:projectId/templates", async (req, res) => {
    const project = { id: await projectOf(db, req.params.projectId) };
    const rows = await db.prisma.template.findMany({
      where: { projectId: project.id },
      orderBy: { internalId: "asc" },
    });
    res.json({ success: true, templates: rows.map(templateView) });
  });

  r.post("/projects/:projectId/templates", async (req, res) => {
    const body = parseInput(templateSchema, req.body);
    const project = { id: await projectOf(db, req.params.projectId) };
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
    const project = { id: await projectOf(db, req.params.projectId) };
    const existing = uuid.safeParse(req.params.templateId).success
      ? await db.prisma.template.findFirst({ where: { projectId: project.id, id: req.params.templateId } })
      : null;
    if (!existing) throw new AppError(ErrorCode.NOT_FOUND, "Template not found");
    const t = await db.prisma.template.update({ where: { id: existing.id }, data: body });
    deps.onTemplateChanged?.(project.id, t.id);
    res.json({ success: true, template: templateView(t) });
  });

  r.post("/projects/:projectId/templates/:templateId/send-test", async (req, res) => {
    const body = parseInput(sendTestTemplateSchema, req.body);
    const project = { id: await projectOf(db, req.params.projectId) };
    if (!uuid.safeParse(req.params.templateId).success)
      throw new AppError(ErrorCode.NOT_FOUND, "Template not found");
    res.json(await sendTestTemplate(deps, project.id, req.params.templateId, body));
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
