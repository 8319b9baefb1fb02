import type { RequestHandler } from "express";
import { AppError, ErrorCode, isUuid } from "@emailsvc/contracts";
import { type Db, findProjectId } from "@emailsvc/db";
import type { AuthContext } from "@emailsvc/http";

export const PROJECT_HEADER = "x-project-id";

/**
 * The internal port's stand-in for the API key: behind the internal token (checked before this), the caller names
 * the project it acts for in `x-project-id` (public-api's admin API, which has checked the operator's role in that
 * project). The routes then read it through getAuth as they would a key's project: the same use cases, the same
 * answers. An unknown project is a 404, as it is on the admin API.
 */
export function actForProject(db: Db): RequestHandler {
  return (req, res, next) => {
    const given = req.header(PROJECT_HEADER)?.trim() ?? "";
    if (!isUuid(given))
      return next(new AppError(ErrorCode.VALIDATION, `${PROJECT_HEADER} must be a project UUID`));
    findProjectId(db, given).then((projectId) => {
      if (!projectId) return next(new AppError(ErrorCode.NOT_FOUND, "Project not found"));
      // no key: the mode is live (domains have no test mode) and the key id names the caller in logs
      res.locals.auth = { projectId, mode: "live", keyId: "internal" } satisfies AuthContext;
      next();
    }, next);
  };
}
