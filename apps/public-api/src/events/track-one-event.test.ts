// POST /v1/events' decision after the key check (trackOneEvent, shared by the Express route and the fast path),
// with the event tracker (the group-committed repository of packages/db) faked by a recorder.
import { projectIdOf } from "@emailsvc/contracts";
import type { EventTracker, TrackItem } from "@emailsvc/db";
import { ErrorCode } from "@emailsvc/http";
import { trackOneEvent } from "./events.routes";

const PROJECT = projectIdOf("0190a0b0-0000-7000-8000-000000000004");

function fakeTracker(duplicate = false) {
  const calls: TrackItem[] = [];
  const track: EventTracker = async (projectId, item) => {
    expect(projectId).toBe(PROJECT);
    calls.push(item);
    return { event_id: "ev-1", recipient_id: "lead-1", created_lead: !duplicate, duplicate };
  };
  return { track, calls };
}

const event = { email: "ada@example.com", event: "signed_up", properties: { plan: "pro" } };

describe("trackOneEvent", () => {
  it("records the event and answers with its ids", async () => {
    const f = fakeTracker();
    expect(await trackOneEvent(f.track, PROJECT, undefined, event)).toEqual({
      success: true,
      event_id: "ev-1",
      recipient_id: "lead-1",
      created_lead: true,
    });
    expect(f.calls).toEqual([{ input: event, key: null }]);
  });

  it("keys the event by the Idempotency-Key, and by its own event_id before that", async () => {
    const f = fakeTracker();
    await trackOneEvent(f.track, PROJECT, "retry-1", event);
    await trackOneEvent(f.track, PROJECT, "retry-1", { ...event, event_id: "client-42" });
    expect(f.calls.map((c) => c.key)).toEqual(["retry-1", "client-42"]);
  });

  it("says so when the event was already stored", async () => {
    const f = fakeTracker(true);
    expect(await trackOneEvent(f.track, PROJECT, "k", event)).toMatchObject({
      duplicate: true,
      created_lead: false,
    });
  });

  it("refuses a bad Idempotency-Key and a bad body with 400, recording nothing", async () => {
    const f = fakeTracker();
    await expect(trackOneEvent(f.track, PROJECT, "", event)).rejects.toMatchObject({
      code: ErrorCode.VALIDATION,
      message: expect.stringMatching(/^Idempotency-Key: must be 1 to \d+ characters$/),
    });
    await expect(
      trackOneEvent(f.track, PROJECT, undefined, { ...event, email: "not-an-address" }),
    ).rejects.toMatchObject({
      code: ErrorCode.VALIDATION,
    });
    await expect(trackOneEvent(f.track, PROJECT, undefined, { ...event, extra: 1 })).rejects.toMatchObject({
      code: ErrorCode.VALIDATION,
    });
    expect(f.calls).toEqual([]);
  });
});
