import { Router } from "express";
import { listThreadsQuery } from "@emailsvc/contracts";
import { type Db, testKeysScoped } from "@emailsvc/db";
import { apiKeyAuth, getAuth, methodNotAllowed, parseInput, type ApiKeyLookup } from "@emailsvc/http";
import { totalHeader } from "../listing/request";
import { getThread } from "./get-thread";
import { listThreads } from "./list-threads";
import { type InboundMimeReader, readInboundRaw } from "./read-raw";

export interface ThreadsRoutesDeps {
  db: Db;
  lookupApiKey: ApiKeyLookup;
  readInboundMime: InboundMimeReader;
}

/**
 * The conversation API (reply threads): GET /v1/threads → { success, data, pagination }; GET /v1/threads/:id →
 * { success, thread, messages }; GET /v1/inbound/:id/raw → the MIME (message/rfc822). All scoped to the key's
 * project: another project's thread or reply is a 404.
 */
export function threadsRouter(deps: ThreadsRoutesDeps): Router {
  const r = Router();
  const auth = apiKeyAuth(deps.lookupApiKey);
  /** A test key of a project that scopes test keys to test data sees only test threads and replies (issue 49). */
  const scope = async (res: Parameters<typeof getAuth>[0]) => {
    const { projectId, mode } = getAuth(res);
    return { projectId, testOnly: mode === "test" && (await testKeysScoped(deps.db, projectId)) };
  };

  r.get("/v1/threads", auth, async (req, res) => {
    const { projectId, testOnly } = await scope(res);
    const out = await listThreads(deps.db, projectId, parseInput(listThreadsQuery, req.query), { testOnly });
    totalHeader(res, out.total);
    res.json(out.body);
  });

  r.get("/v1/threads/:id", auth, async (req, res) => {
    const { projectId, testOnly } = await scope(res);
    res.json(await getThread(deps.db, projectId, String(req.params.id), { testOnly }));
  });

  r.get("/v1/inbound/:id/raw", auth, async (req, res) => {
    const { projectId, testOnly } = await scope(res);
    const mime = await readInboundRaw(deps.db, deps.readInboundMime, projectId, String(req.params.id), {
      testOnly,
    });
    res.status(200).type("message/rfc822").send(mime);
  });

  r.all("/v1/threads", methodNotAllowed("GET", "HEAD"));
  r.all("/v1/threads/:id", methodNotAllowed("GET", "HEAD"));
  r.all("/v1/inbound/:id/raw", methodNotAllowed("GET", "HEAD"));
  return r;
}
