import type { ProjectId } from "@emailsvc/contracts";
import { AppError, ErrorCode, INTERNAL_TOKEN_HEADER } from "@emailsvc/http";

/** domain-service's answer, passed on as it is: its status and its body (`{ success, … }` or `{ success: false, error }`). */
export interface DomainServiceAnswer {
  status: number;
  body: unknown;
}

/**
 * domain-service's internal port, acting for one project (x-project-id) behind the shared internal token: the
 * admin API's way to the domain rules (SES identities, DKIM, the 7 records, DNS checks), which live only there.
 */
export interface DomainService {
  call(
    projectId: ProjectId,
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    opts?: { query?: Record<string, string>; body?: unknown },
  ): Promise<DomainServiceAnswer>;
}

export interface DomainServiceOptions {
  /** DOMAIN_SERVICE_URL: its internal listener, e.g. http://domain-service:3102 */
  baseUrl: string;
  internalToken: string | undefined;
  /** A verification asks the provider and DNS: long enough for both, short of a browser giving up. */
  timeoutMs?: number;
}

export function createDomainServiceClient(opts: DomainServiceOptions): DomainService {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  return {
    async call(projectId, method, path, { query, body } = {}) {
      const url = new URL(`${opts.baseUrl}${path}`);
      for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers: {
            [INTERNAL_TOKEN_HEADER]: opts.internalToken ?? "",
            "x-project-id": projectId,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        throw new AppError(
          ErrorCode.UNAVAILABLE,
          "The domain service cannot be reached: check that domain-service is running, then retry",
          { cause: err },
        );
      }
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { success: false, error: `The domain service answered ${res.status} without a JSON body` };
      }
      // its 401 is ours to fix (a wrong INTERNAL_TOKEN between the two services), not the operator's credential
      if (res.status === 401)
        throw new AppError(
          ErrorCode.UNAVAILABLE,
          "The domain service refused the admin API's internal token: INTERNAL_TOKEN differs between public-api and domain-service",
        );
      return { status: res.status, body: parsed };
    },
  };
}
