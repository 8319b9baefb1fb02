import path from "node:path";
import { spawnTs } from "@emailsvc/testing";

/**
 * Ctrl-C on `pnpm start` reaches a service more than once: SIGINT from the terminal (the whole process group), then
 * SIGTERM from the stack stopping its children. Each later signal must leave the shutdown under way to finish; with
 * `once` handlers the third signal found none and killed the process in the middle of it.
 */
it("a service signalled again while it shuts down still finishes its shutdown and exits 0", async () => {
  const child = spawnTs(path.join(__dirname, "fixtures/signals-child.ts"), {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const waitFor = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => (out.includes(text) ? resolve() : undefined);
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        check();
      });
      check();
    });
  await waitFor("ready");
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once("exit", (code, signal) => r({ code, signal })),
  );
  child.kill("SIGINT");
  await waitFor("closing");
  child.kill("SIGTERM");
  child.kill("SIGINT");
  child.kill("SIGTERM");
  expect(await exited).toEqual({ code: 0, signal: null });
  expect(out).toContain("closed");
});
