import { baseEnv, dbEnv, httpEnv, rabbitEnv } from "@emailsvc/config";

/** Env every service needs: logging, shutdown, its HTTP port(s), PostgreSQL and RabbitMQ. */
export const serviceEnv = (publicPort: number, internalPort?: number) =>
  baseEnv.extend(httpEnv(publicPort, internalPort).shape).extend(dbEnv.shape).extend(rabbitEnv.shape);

export interface BaseEnv {
  NODE_ENV: string;
  LOG_LEVEL: string;
  SHUTDOWN_TIMEOUT_MS: number;
  HOST: string;
  PORT: number;
  INTERNAL_PORT?: number;
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  RABBITMQ_URL: string;
}
