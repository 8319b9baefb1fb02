import {
  ACTIVITY_STATUSES,
  ACTIVITY_TRANSITIONS,
  canMoveActivity,
  movableTo,
  statusList,
} from "./activity-status";

describe("activity status transitions", () => {
  it("allow spec 3's documented paths", () => {
    for (const path of [
      ["queued", "sending", "sent", "delivered", "opened", "clicked"],
      ["queued", "sending", "sent", "bounced"],
      ["queued", "sending", "sent", "complained"],
      ["scheduled", "queued", "sending", "sent"],
    ] as const)
      for (let i = 1; i < path.length; i++) expect(canMoveActivity(path[i - 1]!, path[i]!)).toBe(true);
  });

  it("never move backwards: a late Delivery does not overwrite opened, nothing leaves bounced", () => {
    expect(canMoveActivity("opened", "delivered")).toBe(false);
    expect(canMoveActivity("clicked", "opened")).toBe(false);
    for (const to of ACTIVITY_STATUSES) {
      expect(canMoveActivity("bounced", to)).toBe(false);
      expect(canMoveActivity("cancelled", to)).toBe(false);
    }
    expect(canMoveActivity("sent", "queued")).toBe(false);
    expect(canMoveActivity("delivered", "sending")).toBe(false);
  });

  it("name only known statuses, and give SQL lists of constants", () => {
    for (const froms of Object.values(ACTIVITY_TRANSITIONS))
      for (const f of froms) expect(ACTIVITY_STATUSES).toContain(f);
    expect(movableTo("opened")).toBe("('sent', 'delivered')");
    expect(statusList(["queued"])).toBe("('queued')");
  });
});
