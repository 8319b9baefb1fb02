import { snsStringToSign } from "./sns-message";

describe("snsStringToSign", () => {
  it("lists notification keys in byte order and skips an absent Subject", () => {
    const s = snsStringToSign({
      Type: "Notification",
      MessageId: "m",
      TopicArn: "t",
      Message: "hi",
      Timestamp: "ts",
    });
    expect(s).toBe("Message\nhi\nMessageId\nm\nTimestamp\nts\nTopicArn\nt\nType\nNotification\n");
  });

  it("uses SubscribeURL and Token for subscription confirmations", () => {
    const s = snsStringToSign({
      Type: "SubscriptionConfirmation",
      MessageId: "m",
      TopicArn: "t",
      Message: "confirm",
      Timestamp: "ts",
      Token: "tok",
      SubscribeURL: "https://x",
      Subject: "ignored",
    });
    expect(s).toBe(
      "Message\nconfirm\nMessageId\nm\nSubscribeURL\nhttps://x\nTimestamp\nts\nToken\ntok\nTopicArn\nt\nType\nSubscriptionConfirmation\n",
    );
  });
});
