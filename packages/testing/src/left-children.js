// The services a package run's tests start as child processes (spawnTs → killOnExit), listed in the run's file
// (TEST_CHILDREN_FILE, made by global-setup) as `+<pid> <start time>` when started and `-<pid>` when exited.
// A child still running when it should not be is SIGKILLed: at the start of every test file (a file before it left
// it, see per-file-setup.js) and at the end of the run (global-teardown.js).
const fs = require("node:fs");

/** A process's start time (clock ticks since boot, /proc/<pid>/stat's 22nd field), or null when it is gone. */
function processStartTime(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** SIGKILLs every listed child still running (the same process, not one that got its pid since); returns them. */
function killLeftChildren(why) {
  const file = process.env.TEST_CHILDREN_FILE;
  if (!file || !fs.existsSync(file)) return [];
  const left = new Map();
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("+")) {
      const [pid, started] = line.slice(1).split(" ");
      left.set(pid, started);
    } else if (line.startsWith("-")) left.delete(line.slice(1));
  }
  const killed = [];
  for (const [pid, started] of left) {
    if (processStartTime(pid) !== started) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      killed.push(Number(pid));
      fs.appendFileSync(file, `-${pid}\n`);
      console.warn(`[tests] killed a service ${why} left running (pid ${pid})`);
    } catch {
      /* gone meanwhile */
    }
  }
  return killed;
}

module.exports = { processStartTime, killLeftChildren };
