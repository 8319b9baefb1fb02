import { randomUUID } from "node:crypto";
import { readSnsTestFixtures, signSnsMessage } from "@emailsvc/provider";

const fixtures = readSnsTestFixtures();

/**
 * The SNS-signed `Received` notification SES receiving posts once it has stored a message in S3 (spec 4.9), as
 * inbound-mail's POST /api/inbound/provider takes it; signed with the simulator's test certificate, which the
 * local stack accepts. `snsMessageId` is SNS's: a retry of the same notification carries the same one.
 */
export function signedReceivedNotification(o: {
  sesMessageId: string;
  objectKey: string;
  recipients: string[];
  simulatorUrl: string;
  source?: string;
  bucket?: string;
  snsMessageId?: string;
}): string {
  const now = new Date().toISOString();
  return JSON.stringify(
    signSnsMessage(
      {
        Type: "Notification",
        MessageId: o.snsMessageId ?? randomUUID(),
        TopicArn: "arn:aws:sns:us-east-1:000000000000:ses-inbound",
        Message: JSON.stringify({
          notificationType: "Received",
          mail: {
            timestamp: now,
            source: o.source ?? "c@example.org",
            messageId: o.sesMessageId,
            destination: o.recipients,
          },
          receipt: {
            timestamp: now,
            recipients: o.recipients,
            action: { type: "S3", bucketName: o.bucket ?? "inbound-mail", objectKey: o.objectKey },
          },
        }),
        Timestamp: now,
      },
      { privateKeyPem: fixtures.privateKeyPem, certUrl: `${o.simulatorUrl}/_sim/cert.pem` },
    ),
  );
}
