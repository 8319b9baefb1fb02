// The decisions of a campaign update that need no database: which fields an update changes (undefined keeps,
// null clears), html and a template excluding each other, and when the recipient ledger must be written again.
// updateCampaign, createCampaign and manage-campaign themselves call @emailsvc/db's repository functions as module
// imports (findCampaign, withTransaction…), with no seam to fake; test/campaigns*.int.test.ts covers them.
import type { CampaignContent } from "@emailsvc/db";
import { applyUpdate, changesAudience, contentOf } from "./campaign-content";

const stored: CampaignContent = {
  name: "Spring sale",
  subject: "20% off",
  html: "<p>Sale</p>",
  text: "Sale",
  templateId: null,
  fromEmail: "shop@verified.example",
  fromName: "Shop",
  replyTo: null,
  emailType: "marketing",
  audience: { segment_ids: ["0190a0b0-0000-7000-8000-00000000000a"] },
  startAt: new Date("2030-03-01T09:00:00Z"),
  batchSize: 500,
  batchIntervalHours: 2,
  sendOverHours: null,
};

describe("applyUpdate", () => {
  it("changes only the fields given; null clears a field", () => {
    expect(applyUpdate(stored, { subject: "30% off", batch_size: null, start_at: null })).toEqual({
      ...stored,
      subject: "30% off",
      batchSize: null,
      startAt: null,
    });
    expect(applyUpdate(stored, {})).toEqual(stored);
  });

  it("a new start_at is read as a date", () => {
    expect(applyUpdate(stored, { start_at: "2030-04-01T10:00:00Z" }).startAt).toEqual(
      new Date("2030-04-01T10:00:00Z"),
    );
  });

  it("giving a template clears the html; giving html clears the template", () => {
    const templated = applyUpdate(stored, { template_id: "0190a0b0-0000-7000-8000-0000000000bb" });
    expect([templated.html, templated.templateId]).toEqual([null, "0190a0b0-0000-7000-8000-0000000000bb"]);
    const back = applyUpdate(templated, { html: "<p>Again</p>" });
    expect([back.html, back.templateId]).toEqual(["<p>Again</p>", null]);
  });
});

describe("changesAudience (the ledger is written again)", () => {
  it("for a new audience or a new email type, not for content or pacing", () => {
    expect(changesAudience(stored, applyUpdate(stored, { audience: { all_subscribed: true } }))).toBe(true);
    expect(changesAudience(stored, applyUpdate(stored, { email_type: "transactional" }))).toBe(true);
    expect(
      changesAudience(stored, applyUpdate(stored, { subject: "x", batch_size: 10, html: "<p>y</p>" })),
    ).toBe(false);
    // the same audience given again is no change
    expect(changesAudience(stored, applyUpdate(stored, { audience: { ...stored.audience } }))).toBe(false);
  });
});

describe("contentOf", () => {
  it("reads a create body into the row's fields, absent optionals as null", () => {
    expect(
      contentOf({
        name: "Launch",
        subject: "Hello",
        html: "<p>Hi</p>",
        sender_email: "shop@verified.example",
        email_type: "marketing",
        audience: { tags: ["vip"] },
        start_at: "2030-05-01T08:00:00Z",
      } as Parameters<typeof contentOf>[0]),
    ).toEqual({
      name: "Launch",
      subject: "Hello",
      html: "<p>Hi</p>",
      text: null,
      templateId: null,
      fromEmail: "shop@verified.example",
      fromName: null,
      replyTo: null,
      emailType: "marketing",
      audience: { tags: ["vip"] },
      startAt: new Date("2030-05-01T08:00:00Z"),
      batchSize: null,
      batchIntervalHours: null,
      sendOverHours: null,
    });
  });
});
