/**
 * bench/send-floor (issue 28): the CPU per email of the hops the pipeline cannot do without, on this machine.
 * `floor-service.ts` makes each hop once with the bare libraries (HTTP accept, a durable INSERT of the activity and
 * its outbox row, a confirmed publish to a quorum queue and its consume, SES SendEmail through the SDK, an UPDATE
 * with the event's outbox row, a second publish and consume, an HMAC-signed webhook POST and its delivery row).
 * Nothing of ours runs: no auth, validation, idempotency, suppressions, quota, MIME, claims, events, tracking or
 * attempt log. What this costs is the floor under `send-pipeline`'s "total of our processes" (which runs this too,
 * last): a goal below it cannot be met on this machine by any code of ours.
 *
 * Needs only PostgreSQL and RabbitMQ: it starts its own provider simulator (on SIMULATOR_PORT, default 4599) and
 * its own schema `floor_bench`, dropped at the end. PostgreSQL's and RabbitMQ's CPU is read for the whole server:
 * run it with the stack stopped or quiet. Their idle CPU over 3 s before each phase is printed and taken out.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development send-floor/run.ts [--n 3000] [--warmup 1000]
 */
import { runFloor } from "../lib/send-floor";
import { numArg } from "../lib/stack";

const N = numArg("n", 3000);
const WARMUP = numArg("warmup", 1000);

async function main() {
  const phases = await runFloor({ n: N, warmup: WARMUP, phases: 2 });
  console.log(
    `send-floor: ${N} emails per phase, 50 in flight, the bare hops of the pipeline (see the header)`,
  );
  phases.forEach((p, i) => {
    console.log(
      `  phase ${i + 1}: ${p.rate.toFixed(0)} emails/s end to end (webhooks received); CPU ms per email: ` +
        [...p.perEmail].map(([name, ms]) => `${name} ${ms.toFixed(3)}`).join(", "),
    );
    console.log(
      `    floor of "total of our processes": ${p.ours.toFixed(3)} ms per email (send-pipeline's goal < 1.5); idle taken out: ` +
        `postgresql ${p.idle.postgresql.toFixed(0)} ms/s, rabbitmq ${p.idle.rabbitmq.toFixed(0)} ms/s`,
    );
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
