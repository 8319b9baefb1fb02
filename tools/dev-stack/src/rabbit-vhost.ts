import { spawnSync } from "node:child_process";

const API = "http://127.0.0.1:15672/api";
const AUTH = `Basic ${Buffer.from("guest:guest").toString("base64")}`;

/**
 * Makes the RABBITMQ vhost `vhost` exist with guest's permissions (a second stack's own, so two stacks never
 * consume each other's messages): through the management API when it answers, else `rabbitmqctl`. Throws with
 * what to do when neither works.
 */
export async function ensureVhost(vhost: string): Promise<void> {
  const v = encodeURIComponent(vhost);
  try {
    for (const [path, body] of [
      [`/vhosts/${v}`, undefined],
      [`/permissions/${v}/guest`, { configure: ".*", write: ".*", read: ".*" }],
    ] as const) {
      const res = await fetch(API + path, {
        method: "PUT",
        headers: { authorization: AUTH, "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`PUT ${path}: ${res.status}`);
    }
    return;
  } catch {
    /* no management API: rabbitmqctl */
  }
  // Output captured, never inherited, and a hard timeout: rabbitmqctl's Erlang VM can outlive a timed-out call.
  const ctl = (args: string[]) =>
    spawnSync("timeout", ["-k", "5", "60", "rabbitmqctl", "-q", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 75_000,
      killSignal: "SIGKILL",
    });
  ctl(["add_vhost", vhost]); // fails when it exists already
  const perms = ctl(["set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"]);
  if (perms.status !== 0)
    throw new Error(
      `could not make the RabbitMQ vhost ${vhost} for this stack (enable the management plugin, or give ` +
        `RABBITMQ_URL): ${perms.stderr?.trim() || perms.error?.message || `exit ${perms.status}`}`,
    );
}
