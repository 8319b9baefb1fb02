import { createPrivateKey, createSign, type KeyObject } from "node:crypto";
import { snsStringToSign, type SnsMessage, type UnsignedSnsMessage } from "./sns-message";

export interface SignSnsOptions {
  privateKeyPem: string;
  /** Where verifiers fetch the matching certificate (the simulator serves it at `<publicUrl>/_sim/cert.pem`). */
  certUrl: string;
  /** "2" (RSA-SHA256, what SNS uses for new topics) unless a test needs the legacy SHA1 "1". */
  signatureVersion?: "1" | "2";
}

// Parsing the PEM costs more than the RSA signature itself; the simulator signs thousands of notifications.
const parsedKeys = new Map<string, KeyObject>();
function privateKey(pem: string): KeyObject {
  let key = parsedKeys.get(pem);
  if (!key) {
    key = createPrivateKey(pem);
    if (parsedKeys.size > 16) parsedKeys.clear();
    parsedKeys.set(pem, key);
  }
  return key;
}

/** Signs an SNS message the way SNS does; for the simulator and tests only (real SNS signs with AWS's key). */
export function signSnsMessage(msg: UnsignedSnsMessage, opts: SignSnsOptions): SnsMessage {
  const version = opts.signatureVersion ?? "2";
  const signer = createSign(version === "1" ? "RSA-SHA1" : "RSA-SHA256");
  signer.update(snsStringToSign(msg), "utf8");
  return {
    ...msg,
    SignatureVersion: version,
    Signature: signer.sign(privateKey(opts.privateKeyPem), "base64"),
    SigningCertURL: opts.certUrl,
  };
}
