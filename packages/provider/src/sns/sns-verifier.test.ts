import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import SnsPayloadValidator from "sns-payload-validator";
import { signSnsMessage } from "./sign-sns-message";
import type { UnsignedSnsMessage } from "./sns-message";
import { createSnsVerifier, SnsVerificationError } from "./sns-verifier";
import { readSnsTestFixtures } from "./test-fixtures";

const { certPem, privateKeyPem } = readSnsTestFixtures();
const TOPIC = "arn:aws:sns:us-east-1:000000000000:ses-notifications";
const AWS_CERT_URL =
  "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0123456789abcdef0123456789abcdef.pem";

const unsigned = (): UnsignedSnsMessage => ({
  Type: "Notification",
  MessageId: "6f1c0b1e-0000-4000-8000-000000000001",
  TopicArn: TOPIC,
  Message: JSON.stringify({ eventType: "Bounce", mail: { messageId: "abc" } }),
  Timestamp: "2024-05-01T10:00:00.000Z",
});

async function reason(p: Promise<void>): Promise<string> {
  try {
    await p;
    return "verified";
  } catch (err) {
    expect(err).toBeInstanceOf(SnsVerificationError);
    return (err as SnsVerificationError).reason;
  }
}

describe("SNS signing and verification", () => {
  const fetchCert = jest.fn(async () => certPem);
  beforeEach(() => fetchCert.mockClear());

  it("verifies a SignatureVersion 2 message from an AWS-looking cert URL with the strict default rule", async () => {
    const msg = signSnsMessage(unsigned(), { privateKeyPem, certUrl: AWS_CERT_URL });
    expect(msg.SignatureVersion).toBe("2");
    await expect(reason(createSnsVerifier({ fetchCert }).verify(msg))).resolves.toBe("verified");
  });

  it("verifies SignatureVersion 1 (SHA1) too, also given as a JSON string", async () => {
    const msg = signSnsMessage(unsigned(), { privateKeyPem, certUrl: AWS_CERT_URL, signatureVersion: "1" });
    expect(msg.SignatureVersion).toBe("1");
    await expect(reason(createSnsVerifier({ fetchCert }).verify(JSON.stringify(msg)))).resolves.toBe(
      "verified",
    );
  });

  it("produces signatures the independent sns-payload-validator accepts (v1 and v2, with Subject)", async () => {
    const validator = new SnsPayloadValidator();
    // Its certificate cache is keyed by URL; pre-filling it avoids a download from AWS.
    (validator as unknown as { certCache: { set(k: string, v: string): void } }).certCache.set(
      AWS_CERT_URL,
      certPem,
    );
    for (const version of ["1", "2"] as const) {
      const msg = signSnsMessage(
        { ...unsigned(), Subject: "Amazon SES Email Event Notification" },
        {
          privateKeyPem,
          certUrl: AWS_CERT_URL,
          signatureVersion: version,
        },
      );
      await expect(validator.validate(msg as never)).resolves.toBeTruthy();
    }
  });

  it("rejects a tampered message", async () => {
    const msg = signSnsMessage(unsigned(), { privateKeyPem, certUrl: AWS_CERT_URL });
    const tampered = { ...msg, Message: msg.Message.replace("Bounce", "Delivery") };
    await expect(reason(createSnsVerifier({ fetchCert }).verify(tampered))).resolves.toBe("bad-signature");
  });

  it("rejects non-AWS certificate hosts and http with the strict default, before downloading anything", async () => {
    const v = createSnsVerifier({ fetchCert });
    for (const certUrl of [
      "http://127.0.0.1:4566/_sim/cert.pem",
      "https://127.0.0.1:4566/_sim/cert.pem",
      "http://sns.us-east-1.amazonaws.com/SimpleNotificationService-x.pem",
      "https://sns.us-east-1.amazonaws.com.evil.example/SimpleNotificationService-x.pem",
      "https://evil.example/sns.us-east-1.amazonaws.com.pem",
    ]) {
      const msg = signSnsMessage(unsigned(), { privateKeyPem, certUrl });
      await expect(reason(v.verify(msg))).resolves.toBe("cert-url-not-allowed");
    }
    expect(fetchCert).not.toHaveBeenCalled();
  });

  it("refuses topics outside the allowlist", async () => {
    const msg = signSnsMessage(
      { ...unsigned(), TopicArn: "arn:aws:sns:us-east-1:1:other" },
      { privateKeyPem, certUrl: AWS_CERT_URL },
    );
    await expect(
      reason(createSnsVerifier({ fetchCert, topicArnAllowlist: [TOPIC] }).verify(msg)),
    ).resolves.toBe("topic-not-allowed");
  });

  it("rejects malformed input and unknown signature versions", async () => {
    const v = createSnsVerifier({ fetchCert });
    await expect(reason(v.verify("not json"))).resolves.toBe("malformed");
    const msg = signSnsMessage(unsigned(), { privateKeyPem, certUrl: AWS_CERT_URL });
    await expect(reason(v.verify({ ...msg, SignatureVersion: "3" }))).resolves.toBe(
      "unsupported-signature-version",
    );
  });

  describe("with an explicitly widened rule and a real HTTP certificate server", () => {
    let server: Server;
    let certUrl: string;
    let downloads = 0;
    beforeAll(async () => {
      server = createServer((req, res) => {
        downloads++;
        if (req.url === "/_sim/cert.pem") res.end(certPem);
        else res.writeHead(404).end();
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
      certUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/_sim/cert.pem`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it("downloads the certificate once and caches it", async () => {
      const v = createSnsVerifier({
        allowedCertHosts: /^127\.0\.0\.1$/,
        allowHttpCertUrls: true,
        topicArnAllowlist: [TOPIC],
      });
      const msg = signSnsMessage(unsigned(), { privateKeyPem, certUrl });
      await Promise.all([v.verify(msg), v.verify(msg)]);
      await v.verify({ ...msg });
      expect(downloads).toBe(1);
    });

    it("still needs allowHttpCertUrls for an http URL", async () => {
      const v = createSnsVerifier({ allowedCertHosts: /^127\.0\.0\.1$/ });
      const msg = signSnsMessage(unsigned(), { privateKeyPem, certUrl });
      await expect(reason(v.verify(msg))).resolves.toBe("cert-url-not-allowed");
    });

    it("reports a missing certificate as cert-fetch-failed", async () => {
      const v = createSnsVerifier({ allowedCertHosts: /^127\.0\.0\.1$/, allowHttpCertUrls: true });
      const msg = signSnsMessage(unsigned(), {
        privateKeyPem,
        certUrl: certUrl.replace("cert.pem", "missing.pem"),
      });
      await expect(reason(v.verify(msg))).resolves.toBe("cert-fetch-failed");
    });
  });
});
