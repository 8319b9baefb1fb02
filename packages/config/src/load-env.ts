import { z } from "zod";

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
 * message listing every problem (name, what is wrong), instead of crashing later on first use.
 */
export function loadEnv<S extends z.ZodType>(
  service: string,
  schema: S,
  source: Record<string, string | undefined>,
): z.output<S> {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join(".") || "(env)";
    const got = issue.path.length ? source[String(issue.path[0])] : undefined;
    return got === undefined ? `${name}: is required (${issue.message})` : `${name}: ${issue.message}`;
  });
  throw new EnvError(service, problems);
}
