import { z } from "zod";
import { importsEnv, loadEnv, providerEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

/** Contact imports (issue 25): how many files one replica reads at once, and how. */
const importJobsEnv = z.object({
  /** Import jobs one replica processes at the same time (each holds one database connection). */
  IMPORT_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** Rows per chunk: one transaction writes the chunk's leads, rejected rows and the job's checkpoint. */
  IMPORT_CHUNK_ROWS: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /** Chunks of one job written at once, each on its own connection (the checkpoints still commit in order). */
  IMPORT_PARALLEL_CHUNKS: z.coerce.number().int().min(1).max(8).default(2),
  /** How often triggered jobs nobody reads (their processor died, or none had room) are looked for. */
  IMPORT_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(10_000),
  /** Runs of one job at most before it fails (a job that crashes its processor every time). */
  IMPORT_MAX_ATTEMPTS: z.coerce.number().int().positive().default(10),
});

export const envSchema = serviceEnv(3005)
  .extend({
    /** How often due scheduled sends are claimed (spec 8: 30 s); it also wakes early for the next due send. */
    SCHEDULER_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
    /** Replica id written on claimed rows; defaults to the host name (the pod name in Kubernetes). */
    HOSTNAME: z.string().default("scheduler"),
  })
  .extend(providerEnv.shape)
  .extend(importsEnv.shape)
  .extend(importJobsEnv.shape);
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("scheduler", envSchema, source);
}
