import vm from "node:vm";

/**
 * Runs `fn` synchronously and stops it once it has run `budgetMs`, returning `null` then: a third-party function
 * whose patterns backtrack (a regular expression on hostile text) holds the event loop for the budget at most.
 * V8 ends the running JavaScript, a regular expression mid-match included, from a watchdog thread (vm's
 * `timeout`); about 0.1 ms per call. Errors other than the timeout are thrown as they are.
 */
const context = vm.createContext({ run: null as (() => unknown) | null });
const call = new vm.Script("run()");

export function runWithinBudget<T>(fn: () => T, budgetMs: number): T | null {
  context.run = fn;
  try {
    return call.runInContext(context, { timeout: budgetMs }) as T;
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return null;
    throw err;
  } finally {
    context.run = null;
  }
}
