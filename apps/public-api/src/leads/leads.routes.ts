import { Router, type Request, type RequestHandler } from "express";
import {
  leadAttributesSchema,
  leadBulkSchema,
  leadSegmentsSchema,
  leadTagsSchema,
  leadUpdateSchema,
  leadUpsertSchema,
  listLeadsQuery,
} from "@emailsvc/contracts";
import { type Db, upsertLeads } from "@emailsvc/db";
import {
  apiKeyAuth,
  AppError,
  describeZodError,
  ErrorCode,
  getAuth,
  jsonBody,
  methodNotAllowed,
  parseInput,
  type ApiKeyLookup,
} from "@emailsvc/http";
import { objectBody, totalHeader } from "../listing/request";
import { deleteLead } from "./delete-lead";
import { getLead } from "./get-lead";
import { leadView } from "./lead-row";
import { getLeadAttributes, mergeLeadAttributes } from "./lead-attributes";
import { addLeadToSegments, removeLeadFromSegment } from "./lead-segments";
import { addLeadTags, getLeadTags, removeLeadTags } from "./lead-tags";
import { splitLeadsQuery } from "./lead-query";
import { listLeads } from "./list-leads";
import { updateLead } from "./update-lead";

/** 1,000 leads with attributes: room for real bulk bodies; a single oversized value still gets its own 400. */
export const LEADS_BODY_LIMIT = "10mb";

export interface LeadsRoutesDeps {
  db: Db;
  lookupApiKey: ApiKeyLookup;
  /** The per-key rate limit of the leads endpoints, mounted after the key check. */
  rateLimit: RequestHandler;
}

/**
 * Spec 4.6. `/v1/leads/:id` takes the lead's UUID and `/v1/leads/:email/…` its email; every route takes either
 * (an `@` makes it an email). A lead of another project is a 404, never its data.
 */
export function leadsRouter(deps: LeadsRoutesDeps): Router {
  const r = Router();
  const { db } = deps;
  const pre = [apiKeyAuth(deps.lookupApiKey), deps.rateLimit];
  const body = jsonBody({ limit: LEADS_BODY_LIMIT });
  const ref = (req: Request) => (req.params.id ?? req.params.email) as string;

  // One lead (201 created / 200 updated) or `{ leads: [...] }` (200, one result per item, bad items do not sink
  // the others).
  r.post("/v1/leads", ...pre, ...body, async (req, res) => {
    const { projectId } = getAuth(res);
    const raw = objectBody(req);
    if (!("leads" in raw)) {
      const input = parseInput(leadUpsertSchema, raw);
      const [out] = await upsertLeads(db, projectId, [{ index: 0, input }]);
      if (out!.status === "invalid") throw new AppError(ErrorCode.VALIDATION, `attributes: ${out!.error}`);
      res.status(out!.status === "created" ? 201 : 200).json({
        success: true,
        created: out!.status === "created",
        lead: leadView(out!.row),
      });
      return;
    }
    const { leads } = parseInput(leadBulkSchema, raw);
    const invalid: { index: number; status: "invalid"; email: string | null; error: string }[] = [];
    const valid = [];
    for (const [index, item] of leads.entries()) {
      const parsed = leadUpsertSchema.safeParse(item);
      if (parsed.success) valid.push({ index, input: parsed.data });
      else {
        const email = (item as { email?: unknown } | null)?.email;
        invalid.push({
          index,
          status: "invalid",
          email: typeof email === "string" ? email : null,
          error: describeZodError(parsed.error),
        });
      }
    }
    const done = await upsertLeads(db, projectId, valid);
    const results = [
      ...invalid,
      ...done.map((d) =>
        d.status === "invalid" ? d : { index: d.index, status: d.status, id: d.row.id, email: d.row.email },
      ),
    ].sort((a, b) => a.index - b.index);
    const count = (s: string) => results.filter((x) => x.status === s).length;
    res.json({
      success: true,
      total: results.length,
      created: count("created"),
      updated: count("updated"),
      invalid: count("invalid"),
      results,
    });
  });

  r.get("/v1/leads", ...pre, async (req, res) => {
    const { rest, attributes } = splitLeadsQuery(req.query);
    const out = await listLeads(db, getAuth(res).projectId, parseInput(listLeadsQuery, rest), attributes);
    totalHeader(res, out.total);
    res.json(out.body);
  });
  r.all("/v1/leads", methodNotAllowed("GET", "HEAD", "POST"));

  r.get("/v1/leads/:id", ...pre, async (req, res) => {
    res.json({ success: true, lead: await getLead(db, getAuth(res).projectId, ref(req)) });
  });
  r.put("/v1/leads/:id", ...pre, ...body, async (req, res) => {
    const input = parseInput(leadUpdateSchema, objectBody(req));
    res.json(await updateLead(db, getAuth(res).projectId, ref(req), input));
  });
  r.delete("/v1/leads/:id", ...pre, async (req, res) => {
    res.json(await deleteLead(db, getAuth(res).projectId, ref(req)));
  });
  r.all("/v1/leads/:id", methodNotAllowed("GET", "HEAD", "PUT", "DELETE"));

  r.post("/v1/leads/:id/segments", ...pre, ...body, async (req, res) => {
    const { segment_ids } = parseInput(leadSegmentsSchema, objectBody(req));
    res.json(await addLeadToSegments(db, getAuth(res).projectId, ref(req), segment_ids));
  });
  r.all("/v1/leads/:id/segments", methodNotAllowed("POST"));
  r.delete("/v1/leads/:id/segments/:segmentId", ...pre, async (req, res) => {
    res.json(
      await removeLeadFromSegment(db, getAuth(res).projectId, ref(req), req.params.segmentId as string),
    );
  });
  r.all("/v1/leads/:id/segments/:segmentId", methodNotAllowed("DELETE"));

  r.get("/v1/leads/:email/tags", ...pre, async (req, res) => {
    res.json(await getLeadTags(db, getAuth(res).projectId, ref(req)));
  });
  r.post("/v1/leads/:email/tags", ...pre, ...body, async (req, res) => {
    const { tags } = parseInput(leadTagsSchema, objectBody(req));
    res.json(await addLeadTags(db, getAuth(res).projectId, ref(req), tags));
  });
  r.delete("/v1/leads/:email/tags", ...pre, ...body, async (req, res) => {
    const { tags } = parseInput(leadTagsSchema, objectBody(req));
    res.json(await removeLeadTags(db, getAuth(res).projectId, ref(req), tags));
  });
  r.all("/v1/leads/:email/tags", methodNotAllowed("GET", "HEAD", "POST", "DELETE"));

  r.get("/v1/leads/:email/attributes", ...pre, async (req, res) => {
    res.json(await getLeadAttributes(db, getAuth(res).projectId, ref(req)));
  });
  r.post("/v1/leads/:email/attributes", ...pre, ...body, async (req, res) => {
    const { attributes } = parseInput(leadAttributesSchema, objectBody(req));
    res.json(await mergeLeadAttributes(db, getAuth(res).projectId, ref(req), attributes));
  });
  r.all("/v1/leads/:email/attributes", methodNotAllowed("GET", "HEAD", "POST"));
  return r;
}
