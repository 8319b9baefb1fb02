import { distinctDelays, retryDelayFor } from "./declare-topology";

const policy = { delaysMs: [1000, 5000, 5000, 60000], maxAttempts: 8 };

test("attempt k waits the k-th delay and the last delay repeats", () => {
  expect([1, 2, 3, 4, 5, 7].map((a) => retryDelayFor(policy, a))).toEqual([
    1000, 5000, 5000, 60000, 60000, 60000,
  ]);
});

test("one retry queue per distinct delay", () => {
  expect(distinctDelays(policy)).toEqual([1000, 5000, 60000]);
});
