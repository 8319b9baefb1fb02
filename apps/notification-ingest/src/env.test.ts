import { readEnv } from "./env";

const base = { TRACKING_SECRET: "t".repeat(32) };

describe("notification-ingest env", () => {
  it("refuses to start without the SNS topics to accept: any signed topic could post bounces and complaints", () => {
    for (const SNS_TOPIC_ARNS of [undefined, "", " , "]) {
      expect(() => readEnv({ ...base, SNS_TOPIC_ARNS })).toThrow(
        /SNS_TOPIC_ARNS: .*SNS_ALLOW_ANY_TOPIC=true/,
      );
    }
  });

  it("starts with topic ARNs, or with SNS_ALLOW_ANY_TOPIC=true", () => {
    const arn = "arn:aws:sns:eu-west-1:123456789012:ses-notifications";
    expect(readEnv({ ...base, SNS_TOPIC_ARNS: arn }).SNS_TOPIC_ARNS).toBe(arn);
    expect(readEnv({ ...base, SNS_ALLOW_ANY_TOPIC: "true" }).SNS_ALLOW_ANY_TOPIC).toBe(true);
  });
});
