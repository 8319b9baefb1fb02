import type { Express } from "express";
import type { Logger } from "@emailsvc/observability";
import { errorMiddleware, notFoundHandler } from "./error-middleware";

/** Adds the 404 fallback and the error middleware; call after all routes are mounted. */
export function finishApp(app: Express, logger: Logger): Express {
  app.use(notFoundHandler);
  app.use(errorMiddleware(logger));
  return app;
}
