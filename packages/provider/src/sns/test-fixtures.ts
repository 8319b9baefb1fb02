import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The committed, self-signed SNS signing key pair (see fixtures/README.md). TEST AND LOCAL DEV ONLY: the
 * simulator signs with it; nothing in production may trust it.
 */
export function readSnsTestFixtures(): { certPem: string; privateKeyPem: string } {
  // Same relative location from src/sns (tsx/jest) and dist/sns (built).
  const dir = path.resolve(__dirname, "../../fixtures");
  return {
    certPem: readFileSync(path.join(dir, "sns-test-signing.cert.pem"), "utf8"),
    privateKeyPem: readFileSync(path.join(dir, "sns-test-signing.key.pem"), "utf8"),
  };
}
