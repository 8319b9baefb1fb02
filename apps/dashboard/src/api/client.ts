import createClient, { type Middleware } from "openapi-fetch";
import { createContext, useContext } from "react";
import type { paths } from "./schema";

/** An answer the admin API refused: its status and its own words (`{ success: false, error }`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type AdminClient = ReturnType<typeof createAdminClient>;

/**
 * The admin API's typed client (paths from the generated schema). Same origin as the pages (the admin listener
 * serves both), the session cookie sent with every call, and every change carries the session's CSRF token.
 */
export function createAdminClient(baseUrl = "") {
  let csrfToken: string | null = null;
  // Arrays as the API reads them: one comma-separated parameter (`status=sent,delivered`), never repeated.
  const client = createClient<paths>({
    baseUrl,
    credentials: "include",
    querySerializer: { array: { style: "form", explode: false } },
  });
  const csrf: Middleware = {
    onRequest({ request }) {
      if (!["GET", "HEAD", "OPTIONS"].includes(request.method) && csrfToken)
        request.headers.set("x-csrf-token", csrfToken);
      return request;
    },
  };
  client.use(csrf);
  return {
    ...client,
    setCsrfToken(token: string | null) {
      csrfToken = token;
    },
  };
}

/**
 * The body of a successful answer as the page expects it, or an ApiError with the API's message. The admin OpenAPI
 * document describes requests and parameters but not response bodies, so each feature states the shape it reads
 * (./types.ts) and this is the one place that shape is asserted.
 */
export async function unwrap<T>(
  call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<T> {
  let result;
  try {
    result = await call;
  } catch {
    throw new ApiError(0, "The admin API cannot be reached: check that public-api is running, then retry");
  }
  const { data, error, response } = result;
  if (!response.ok) {
    const said = (error as { error?: unknown } | undefined)?.error;
    throw new ApiError(
      response.status,
      typeof said === "string" && said
        ? said
        : `The admin API answered ${response.status} ${response.statusText}`,
    );
  }
  return data as T;
}

export const AdminClientContext = createContext<AdminClient | null>(null);

export function useAdminClient(): AdminClient {
  const client = useContext(AdminClientContext);
  if (!client) throw new Error("useAdminClient outside AdminClientContext");
  return client;
}
