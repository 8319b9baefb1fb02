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

  it("limits a slow receiver to its slots, per mode, until attempts are fast again", () => {
    const gate = createSlowReceiverGate({ slowMs: 2000, slowLimit: 2 });
    const first = [gate.admit("p", false)!, gate.admit("p", false)!, gate.admit("p", false)!];
    now += 2500; // all three still running past slowMs: slow
    expect(gate.admit("p", false)).toBeNull();
    expect(gate.admit("p", true)).not.toBeNull(); // the test URL is another destination
    expect(gate.admit("q", false)).not.toBeNull(); // so is another project
    first[0]!(); // took 2.5 s: slow, and still 2 in flight
    expect(gate.admit("p", false)).toBeNull();
    first[1]!();
    first[2]!();
    // slow with nothing in flight: 2 slots
    const fast = [gate.admit("p", false)!, gate.admit("p", false)!];
    expect(gate.admit("p", false)).toBeNull();
    now += 50;
    fast.forEach((r) => r()); // two fast attempts: not yet enough
    const more = [gate.admit("p", false)!, gate.admit("p", false)!];
    expect(gate.admit("p", false)).toBeNull();
    more[0]!(); // the third fast one in a row: fast again, no limit
    expect([gate.admit("p", false), gate.admit("p", false), gate.admit("p", false)].every(Boolean)).toBe(
      true,
    );
  });

  it("one fast failure between hangs does not lift the limit", () => {
    const gate = createSlowReceiverGate({ slowMs: 2000, slowLimit: 1 });
    const hang = gate.admit("p", false)!;
    now += 3000;
    hang(); // slow
    const quick = gate.admit("p", false)!;
    expect(gate.admit("p", false)).toBeNull();
    now += 10;
    quick(); // e.g. an instant 500
    gate.admit("p", false)!;
    expect(gate.admit("p", false)).toBeNull(); // still limited to one
  });
});
