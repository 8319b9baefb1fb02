import { createSlowReceiverGate } from "../src/use-cases/slow-receivers";

let now = 1_000_000;
beforeEach(() => jest.spyOn(Date, "now").mockImplementation(() => now));
afterEach(() => jest.restoreAllMocks());

describe("slow receiver gate", () => {
  it("never limits a fast receiver, however many attempts it has in flight", () => {
    const gate = createSlowReceiverGate({ slowMs: 2000, slowLimit: 2 });
    const releases = Array.from({ length: 50 }, () => gate.admit("p", false));
    expect(releases.every((r) => typeof r === "function")).toBe(true);
    now += 100;
    releases.forEach((r) => r!());
    expect(gate.admit("p", false)).not.toBeNull();
  });

  it("limits a slow receiver to its slots, per mode, until an attempt is fast again", () => {
    const gate = createSlowReceiverGate({ slowMs: 2000, slowLimit: 2 });
    const first = [gate.admit("p", false)!, gate.admit("p", false)!, gate.admit("p", false)!];
    now += 2500; // all three still running past slowMs: slow
    expect(gate.admit("p", false)).toBeNull();
    expect(gate.admit("p", true)).not.toBeNull(); // the test URL is another destination
    expect(gate.admit("q", false)).not.toBeNull(); // so is another project
    first[0]!(); // took 2.5 s: still slow, and 2 in flight
    expect(gate.admit("p", false)).toBeNull();
    first[1]!();
    const third = gate.admit("p", false); // 1 in flight: a slot
    expect(third).not.toBeNull();
    expect(gate.admit("p", false)).toBeNull();
    now += 50;
    third!(); // a fast attempt: no longer slow
    first[2]!(); // ...but this one took long again
    expect([gate.admit("p", false), gate.admit("p", false)].every(Boolean)).toBe(true);
    expect(gate.admit("p", false)).toBeNull();
  });
});
