import { SMTPConnection } from "smtp-server/lib/smtp-connection";

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
let installed = false;

/**
 * smtp-server adds an RFC 3463 enhanced status code to every reply from a table keyed by the reply code alone
 * (550 → 5.1.1 "bad mailbox"), and the errors of our handlers cannot name another: an unverified sender would be
 * answered "550 5.1.1". A reply whose text starts with its own enhanced code (`5.7.1 Sender …`) keeps that one
 * instead; every other reply (smtp-server's own 552 5.3.4, 535 5.7.8, 452 4.5.3…) is unchanged.
 */
export function installEnhancedStatusCodes(): void {
  if (installed) return;
  installed = true;
  const proto = SMTPConnection.prototype as unknown as {
    send(code: number, data?: unknown, context?: string | false): void;
  };
  const send = proto.send;
  proto.send = function (this: unknown, code, data, context) {
    return send.call(this, code, data, typeof data === "string" && ENHANCED.test(data) ? false : context);
  };
}
