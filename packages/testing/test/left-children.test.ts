import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnTs, waitFor } from "../src";
import { killLeftChildren } from "../src/left-children";

// The per-file and end-of-run clean-up: a service a test left running is SIGKILLed, one that exited is not
// touched (its pid may belong to another process by then).
const dir = mkdtempSync(path.join(tmpdir(), "left-children-"));
const idle = path.join(dir, "idle.ts");
writeFileSync(idle, "setInterval(() => undefined, 1000);\n");
// this package's run has no global set-up: the test makes its own list
process.env.TEST_CHILDREN_FILE = path.join(dir, "children.txt");
writeFileSync(process.env.TEST_CHILDREN_FILE, "");

test("a child still running is killed once, and one that exited is left alone", async () => {
  const left = spawnTs(idle, { stdio: "ignore" });
  const stopped = spawnTs(idle, { stdio: "ignore" });
  const exited = (p: typeof left) => new Promise<string | null>((r) => p.once("exit", (_c, s) => r(s)));
  const leftExit = exited(left);
  const stoppedExit = exited(stopped);
  try {
    stopped.kill("SIGTERM");
    expect(await stoppedExit).toBe("SIGTERM");
    await waitFor(() => left.pid !== undefined);

    expect(killLeftChildren("this test")).toEqual([left.pid]);
    expect(await leftExit).toBe("SIGKILL");
    // recorded as gone: nothing to kill a second time
    expect(killLeftChildren("this test")).toEqual([]);
  } finally {
    // a failed expectation must not leave them running
    for (const p of [left, stopped]) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  }
});
