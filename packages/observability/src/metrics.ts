import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export { Counter, Gauge, Histogram, Registry };

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<"method" | "route" | "status">;
  counter<L extends string>(name: string, help: string, labelNames?: L[]): Counter<L>;
  gauge<L extends string>(name: string, help: string, labelNames?: L[]): Gauge<L>;
  histogram<L extends string>(name: string, help: string, labelNames?: L[], buckets?: number[]): Histogram<L>;
}

/** One Prometheus registry per service (no global default registry, so tests can build many apps). */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return {
    registry,
    httpDuration,
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers: [registry] }),
    gauge: (name, help, labelNames = []) => new Gauge({ name, help, labelNames, registers: [registry] }),
    histogram: (name, help, labelNames = [], buckets) =>
      new Histogram({ name, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) }),
  };
}
