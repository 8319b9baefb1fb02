import { projectIdOf } from "@emailsvc/contracts";
import { createFailingReceivers } from "./failing-receivers";

const p = projectIdOf("p");

let now = 1_000_000;
beforeEach(() => jest.spyOn(Date, "now").mockImplementation(() => now));
afterEach(() => jest.restoreAllMocks());

describe("failing receivers", () => {
  it("turns failing after failAfter unreachable attempts in a row, then lets one probe through per wait", () => {
    const changes: string[] = [];
    const f = createFailingReceivers({
      failAfter: 3,
      probeMs: [100, 400],
      onChange: (p, t, failing) => changes.push(`${p}:${t}:${failing}`),
    });
    f.admit(p, false)!("unreachable");
    f.admit(p, false)!("reached"); // an answer resets the count
    for (let i = 0; i < 2; i++) f.admit(p, false)!("unreachable");
    expect(changes).toEqual([]);
    f.admit(p, false)!("unreachable");
    expect([changes, f.failingCount()]).toEqual([["p:false:true"], 1]);
    expect(f.admit(p, false)).toBeNull(); // the first probe waits 100 ms
    expect(f.admit(p, true)).not.toBeNull(); // the test URL is another destination
    now += 100;
    const probe = f.admit(p, false)!;
    expect(f.admit(p, false)).toBeNull(); // one at a time
    probe("unreachable");
    now += 399;
    expect(f.admit(p, false)).toBeNull(); // the next one waits longer
    now += 1;
    const second = f.admit(p, false)!;
    second("none"); // no attempt made (e.g. the delivery was already final): the next event may probe
    const third = f.admit(p, false)!;
    third("reached");
    expect([changes, f.failingCount()]).toEqual([["p:false:true", "p:false:false"], 0]);
    expect([f.admit(p, false), f.admit(p, false)].every(Boolean)).toBe(true);
  });

  it("a report counts once", () => {
    const f = createFailingReceivers({ failAfter: 2, probeMs: [100] });
    const r = f.admit(p, false)!;
    r("unreachable");
    r("unreachable");
    expect(f.failingCount()).toBe(0);
  });

  it("keeps the inbound (reply) URL's state apart from the event URL's, and reports its kind", () => {
    const changes: string[] = [];
    const f = createFailingReceivers({
      failAfter: 2,
      probeMs: [100],
      onChange: (p, t, failing, kind) => changes.push(`${p}:${t}:${failing}:${kind}`),
    });
    for (let i = 0; i < 2; i++) f.admit(p, false, "inbound")!("unreachable");
    expect(changes).toEqual(["p:false:true:inbound"]);
    expect(f.admit(p, false, "inbound")).toBeNull();
    expect(f.admit(p, false)).not.toBeNull(); // the event URL still delivers
  });
});
