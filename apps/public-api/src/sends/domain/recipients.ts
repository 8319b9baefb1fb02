/** Addresses without case-insensitive duplicates, first spelling and order kept (one activity per person). */
export function uniqueAddresses(addresses: readonly string[], seen = new Set<string>()): string[] {
  return addresses.filter((a) => {
    const k = a.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The three lists of one send, each person once across all of them: a recipient is not copied again, and a cc is
 * not also a bcc. `to` wins over `cc`, `cc` over `bcc` (the most visible place), like a mail client does.
 */
export function distinctLists(lists: {
  to: readonly string[];
  cc: readonly string[];
  bcc: readonly string[];
}) {
  const seen = new Set<string>();
  return {
    to: uniqueAddresses(lists.to, seen),
    cc: uniqueAddresses(lists.cc, seen),
    bcc: uniqueAddresses(lists.bcc, seen),
  };
}
