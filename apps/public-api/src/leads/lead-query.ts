import type { Request } from "express";
import { attributeKeyProblem } from "@emailsvc/contracts";
import { AppError, ErrorCode } from "@emailsvc/http";

const ATTRIBUTE_PARAM = /^attributes\[(.+)\]$/;

/**
 * A leads list's query string: `attributes[name]=value` parameters (attribute equality) apart, the rest for the
 * zod schema (GET /v1/leads and the admin API's list take the same).
 */
export function splitLeadsQuery(query: Request["query"]) {
  const rest: Record<string, unknown> = {};
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    const m = ATTRIBUTE_PARAM.exec(k);
    if (!m) {
      rest[k] = v;
      continue;
    }
    const problem = attributeKeyProblem(m[1]!);
    if (problem) throw new AppError(ErrorCode.VALIDATION, `${k}: ${problem}`);
    if (typeof v !== "string") throw new AppError(ErrorCode.VALIDATION, `${k}: give one value`);
    attributes[m[1]!] = v;
  }
  return { rest, attributes };
}
