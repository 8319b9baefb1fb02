import { S3Client } from "@aws-sdk/client-s3";
import { SESv2Client } from "@aws-sdk/client-sesv2";
import { SNSClient } from "@aws-sdk/client-sns";
import type { ProviderConfig } from "./config";

/** Options every AWS client of the platform shares (region, endpoint override, credentials, timeouts). */
export function commonOptions(cfg: ProviderConfig) {
  return {
    region: cfg.region ?? "us-east-1",
    // Resolve each command's middleware stack once per client instead of on every call (the SDK's documented
    // option; we never change a stack after the first request). Rebuilding it was ~10% of send-worker's CPU
    // per SendEmail under bench/send-pipeline.
    cacheMiddleware: true,
    ...(cfg.endpoint ? { endpoint: cfg.endpoint } : {}),
    ...(cfg.accessKeyId && cfg.secretAccessKey
      ? { credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey } }
      : {}),
    ...(cfg.maxAttempts ? { maxAttempts: cfg.maxAttempts } : {}),
    ...(cfg.requestTimeoutMs
      ? {
          requestHandler: {
            requestTimeout: cfg.requestTimeoutMs,
            connectionTimeout: cfg.requestTimeoutMs,
            // Without this, current smithy handlers only log a warning when requestTimeout passes.
            throwOnRequestTimeout: true,
          },
        }
      : {}),
  };
}

export type SesClient = SESv2Client;
export type S3ClientType = S3Client;
export type SnsClient = SNSClient;

export function createSesClient(cfg: ProviderConfig): SESv2Client {
  return new SESv2Client(commonOptions(cfg));
}

/**
 * Path-style addressing and checksums only "when required": s3rver (local S3) understands neither virtual-host
 * buckets nor the SDK's default streaming checksums (objects would be stored with aws-chunked framing).
 */
export function createS3Client(cfg: ProviderConfig): S3Client {
  return new S3Client({
    ...commonOptions(cfg),
    forcePathStyle: true,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

export function createSnsClient(cfg: ProviderConfig): SNSClient {
  return new SNSClient(commonOptions(cfg));
}
