import v8 from "node:v8";
import vm from "node:vm";

/** Growth of the heap and of the memory its objects hold outside it (Buffers) that triggers a full collection. */
const GROWTH_BYTES = 32 * 1024 * 1024;

/**
 * A full garbage collection when the heap and the Buffers its objects hold have grown by 32 MB since the last one,
 * for the import runner (called after each chunk). Reading a million rows makes short-lived garbage, some of which survives long enough to reach V8's
 * old generation; left alone, V8 let the heap grow by 150 to 200 MB before collecting it (measured on
 * bench/imports). A full collection every 10,000 rows kept the growth near 40 MB but cost about 4 µs of CPU per row:
 * each one marks the whole live heap (some 40 MB of modules and clients), whatever the garbage. Collecting on growth
 * bounds the heap the same way with a fraction of the collections. Buffers count too: a chunk's statement, the
 * file's stream and the parser leave spent ones that only a full collection frees once their owners have aged. `--expose-gc` set at run time, and the function
 * taken from a fresh context, give it without a command-line flag on every deployment.
 */
export function fullGc(): () => void {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as (() => void) | undefined;
  if (typeof gc !== "function") return () => undefined;
  const used = () => {
    const h = v8.getHeapStatistics();
    return h.used_heap_size + h.external_memory;
  };
  let after = used();
  return () => {
    if (used() - after < GROWTH_BYTES) return;
    gc();
    after = used();
  };
}
