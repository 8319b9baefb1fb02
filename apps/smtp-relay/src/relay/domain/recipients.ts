/** The to / cc / bcc lists of an accepted message, as the send model takes them. */
export interface RecipientLists {
  to: string[];
  cc: string[];
  bcc: string[];
}

const lower = (a: string) => a.toLowerCase();

/**
 * The envelope (RCPT TO) decides who receives the message; the headers only say in which role. A recipient named
 * in To: is a `to` (one activity each, as /v1/send-email does), one named in Cc: a `cc`, and any other envelope
 * recipient a Bcc (the headers never name it). A message with no envelope recipient in To: (Bcc only, or
 * "undisclosed-recipients:;") sends one email to each of them instead, since the send model needs a `to`: each
 * sees only their own address. Header addresses that are not in the envelope are not sent to, as with any MTA.
 */
export function splitRecipients(
  envelope: readonly string[],
  headers: { to: readonly string[]; cc: readonly string[] },
): RecipientLists {
  const toSet = new Set(headers.to.map(lower));
  const ccSet = new Set(headers.cc.map(lower));
  const seen = new Set<string>();
  const lists: RecipientLists = { to: [], cc: [], bcc: [] };
  for (const address of envelope) {
    const key = lower(address);
    if (seen.has(key)) continue;
    seen.add(key);
    if (toSet.has(key)) lists.to.push(address);
    else if (ccSet.has(key)) lists.cc.push(address);
    else lists.bcc.push(address);
  }
  if (lists.to.length === 0) return { to: [...lists.cc, ...lists.bcc], cc: [], bcc: [] };
  return lists;
}
