import { stackIsolation } from "../src/isolation";

describe("a second stack keeps apart from the developer's", () => {
  const root = "/repo";

  it("the developer's .local stack: emailsvc, the vhost /, the shared rate key", () => {
    expect(stackIsolation("/repo/.local", root, {})).toEqual({
      databaseUrl: "postgresql://postgres@127.0.0.1:5432/emailsvc",
      rabbitUrl: "amqp://guest:guest@127.0.0.1:5672",
      ownVhost: null,
      sendRateKey: null,
    });
  });

  it("STACK_STATE_DIR=.local-b: its own database, vhost and rate key, named after the folder", () => {
    expect(stackIsolation("/repo/.local-b", root, {})).toEqual({
      databaseUrl: "postgresql://postgres@127.0.0.1:5432/emailsvc_local_b",
      rabbitUrl: "amqp://guest:guest@127.0.0.1:5672/emailsvc_local_b",
      ownVhost: "emailsvc_local_b",
      sendRateKey: "emailsvc_local_b:send-rate",
    });
    // any folder name becomes a valid database name of at most 63 characters
    const odd = stackIsolation(`/tmp/My Stack.${"x".repeat(80)}`, root, {});
    expect(odd.ownVhost).toMatch(/^emailsvc_my_stack_x+$/);
    expect(odd.ownVhost!.length).toBe(63);
  });

  it("DATABASE_URL, RABBITMQ_URL and SEND_RATE_KEY given win, and no vhost is made", () => {
    const env = {
      DATABASE_URL: "postgresql://u@db/x",
      RABBITMQ_URL: "amqp://mq/y",
      SEND_RATE_KEY: "k",
    };
    expect(stackIsolation("/repo/.local-b", root, env)).toEqual({
      databaseUrl: "postgresql://u@db/x",
      rabbitUrl: "amqp://mq/y",
      ownVhost: null,
      sendRateKey: null,
    });
  });
});
