// s3rver as its own process for the local stack (the S3 stand-in; see TOOLCHAIN.md).
import fs from "node:fs";
import S3rver from "s3rver";

const port = Number(process.env.S3_PORT ?? 4569);
// Loopback for the local stack; docker-compose sets 0.0.0.0 so the other containers reach http://s3:4569.
const host = process.env.S3_HOST ?? "127.0.0.1";
const directory = process.env.S3_DIR ?? ".local/s3";
fs.mkdirSync(directory, { recursive: true });
const server = new S3rver({
  port,
  address: host,
  directory,
  silent: true,
  configureBuckets: [{ name: "inbound-mail" }, { name: "attachments" }, { name: "imports" }],
});
server.run().then(
  () => process.stdout.write(`s3rver listening on ${host}:${port}\n`),
  (err: unknown) => {
    process.stderr.write(`s3rver failed: ${String(err)}\n`);
    process.exit(1);
  },
);
// Once, however many signals come (Ctrl-C on `pnpm start` sends SIGINT, then the stack sends SIGTERM).
let stopping: Promise<void> | undefined;
const stop = () => {
  stopping ??= server.close().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
