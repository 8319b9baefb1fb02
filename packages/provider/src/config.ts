import { z } from "zod";

/**
 * Where and how to reach AWS (or a local stand-in). `endpoint` is set only for local runs (provider simulator,
 * s3rver); production leaves it unset and the SDK resolves the regional AWS endpoint.
 */
export const providerConfigSchema = z.object({
  region: z.string().min(1).default("us-east-1"),
  endpoint: z.string().url().optional(),
  /** Static credentials; when absent the SDK's default chain (env, instance role, …) is used. */
  accessKeyId: z.string().min(1).optional(),
  secretAccessKey: z.string().min(1).optional(),
  /** SDK attempts per call (1 = no SDK retries; callers that retry themselves want 1). Default: SDK's 3. */
  maxAttempts: z.coerce.number().int().positive().optional(),
  /** Socket-level timeout per request, so a hung provider call surfaces as a timeout instead of hanging. */
  requestTimeoutMs: z.coerce.number().int().positive().optional(),
});

/** What the client factories take; `providerConfigSchema`'s output is assignable to it. */
export interface ProviderConfig {
  region?: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  maxAttempts?: number;
  requestTimeoutMs?: number;
}
