import { dependenciesFor } from "../src/preflight";
import { SERVICES, withPortOffset, withReplicas } from "../src/services";

describe("STACK_REPLICAS: extra instances of a service (bench/chaos kills one while the other works)", () => {
  it("send-worker=2,campaign-dispatcher=2 adds send-worker-2 and campaign-dispatcher-2 on ports 50 up", () => {
    const all = withReplicas(withPortOffset(SERVICES, 700), "send-worker=2,campaign-dispatcher=2");
    expect(all).toHaveLength(SERVICES.length + 2);
    expect(all.find((s) => s.name === "send-worker-2")).toEqual({
      name: "send-worker-2",
      app: "send-worker",
      port: 3753,
      publicPrefixes: [],
    });
    expect(all.find((s) => s.name === "campaign-dispatcher-2")).toEqual({
      name: "campaign-dispatcher-2",
      app: "campaign-dispatcher",
      port: 3754,
      internalPort: 3854,
      publicPrefixes: [],
      background: true,
    });
    // no two processes on one port
    const ports = all.flatMap((s) => [s.port, ...(s.internalPort ? [s.internalPort] : [])]);
    expect(new Set(ports).size).toBe(ports.length);
  });

  it("unset or empty: the table as it was; a typo or smtp-relay is refused", () => {
    expect(withReplicas(SERVICES, undefined)).toEqual(SERVICES);
    expect(withReplicas(SERVICES, "")).toEqual(SERVICES);
    expect(() => withReplicas(SERVICES, "send-wroker=2")).toThrow(/no service send-wroker/);
    expect(() => withReplicas(SERVICES, "smtp-relay=2")).toThrow(/smtp-relay/);
    expect(() => withReplicas(SERVICES, "send-worker:2")).toThrow(/<service>=<count>/);
  });
});

describe("the preflight checks the servers the URLs name", () => {
  it("defaults without URLs; the URLs' hosts and ports when given", () => {
    expect(dependenciesFor({}).map((d) => `${d.name} ${d.host}:${d.port}`)).toEqual([
      "PostgreSQL 127.0.0.1:5432",
      "RabbitMQ 127.0.0.1:5672",
      "Redis 127.0.0.1:6379",
    ]);
    const deps = dependenciesFor({
      DATABASE_URL: "postgresql://postgres@127.0.0.1:6132/emailsvc",
      RABBITMQ_URL: "amqp://guest:guest@localhost:6372",
      REDIS_URL: "redis://127.0.0.1/0",
    });
    expect(deps.map((d) => `${d.name} ${d.host}:${d.port}`)).toEqual([
      "PostgreSQL 127.0.0.1:6132",
      "RabbitMQ localhost:6372",
      "Redis 127.0.0.1:6379",
    ]);
    expect(deps[0]!.fix).toContain("127.0.0.1:6132");
  });
});
