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

/** The AWS variables every service reads (packages/config's `providerEnv`). */
export interface ProviderEnv {
  AWS_REGION: string;
  SES_ENDPOINT?: string | undefined;
  S3_ENDPOINT?: string | undefined;
  SNS_ENDPOINT?: string | undefined;
  AWS_ACCESS_KEY_ID?: string | undefined;
  AWS_SECRET_ACCESS_KEY?: string | undefined;
}

/**
 * One service's client configuration from the env: the region, the static credentials when both are set (else
 * the SDK's default chain), and that service's local endpoint override when there is one. `extra` adds the
 * caller's timeout or attempts.
 */
export function providerConfigFromEnv(
  env: ProviderEnv,
  service: "ses" | "s3" | "sns",
  extra: Pick<ProviderConfig, "maxAttempts" | "requestTimeoutMs"> = {},
): ProviderConfig {
  const endpoint = { ses: env.SES_ENDPOINT, s3: env.S3_ENDPOINT, sns: env.SNS_ENDPOINT }[service];
  return {
    region: env.AWS_REGION,
    ...(endpoint ? { endpoint } : {}),
    ...(env.AWS_ACCESS_KEY_ID ? { accessKeyId: env.AWS_ACCESS_KEY_ID } : {}),
    ...(env.AWS_SECRET_ACCESS_KEY ? { secretAccessKey: env.AWS_SECRET_ACCESS_KEY } : {}),
    ...extra,
  };
}
