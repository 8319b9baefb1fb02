import { z } from "zod";
import { PRODUCTION_SECRETS, productionSecretProblems } from "./production-secrets";

/** Thrown when a service starts with missing or malformed environment variables. */
export class EnvError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`Invalid environment for ${service}:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}

/**
 * Parses the environment once at start-up with the service's zod schema and fails fast with one readable
 * message listing every problem (name, what is wrong), instead of crashing later on first use. With
 * NODE_ENV=production it also refuses the secrets of PRODUCTION_SECRETS the schema takes when they are missing,
 * placeholders, all zeros, of low entropy or shorter than their production minimum (production-secrets.ts).
 */
export function loadEnv<S extends z.ZodType>(
  service: string,
  schema: S,
  source: Record<string, string | undefined>,
): z.output<S> {
  const result = schema.safeParse(source);
  if (result.success) {
    const data = result.data as Record<string, unknown>;
    if (data.NODE_ENV !== "production") return result.data;
    // The secrets this service's schema takes (an optional one, INTERNAL_TOKEN, is absent from the data when unset).
    const shape = schema instanceof z.ZodObject ? Object.keys(schema.shape as object) : [];
    const names = Object.keys(PRODUCTION_SECRETS).filter((n) => n in data || shape.includes(n));
    const problems = productionSecretProblems(names, data);
    if (problems.length) throw new EnvError(service, problems);
    return result.data;
  }
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join(".") || "(env)";
    const got = issue.path.length ? source[String(issue.path[0])] : undefined;
    return got === undefined ? `${name}: is required (${issue.message})` : `${name}: ${issue.message}`;
  });
  throw new EnvError(service, problems);
}
