/** The list of this package run's child services (global-setup names it), for killOnExit; unset outside jest. */
export function testChildrenFile(): string | undefined {
  return process.env.TEST_CHILDREN_FILE;
}

/** The environment a test's child service inherits (its DATABASE_URL, RABBITMQ_URL, REDIS_URL…), with `extra` on top. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/** TEST_LOG_LEVEL, the log level a test asks its child services for (unset: the caller's default). */
export function testLogLevel(): string | undefined {
  return process.env.TEST_LOG_LEVEL;
}
