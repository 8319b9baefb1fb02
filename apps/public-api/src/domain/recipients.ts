/** Addresses without case-insensitive duplicates, first spelling and order kept (one activity per person). */
export function uniqueAddresses(addresses: readonly string[]): string[] {
  const seen = new Set<string>();
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
  const to = uniqueAddresses(lists.to);
  const seen = new Set(to.map((a) => a.toLowerCase()));
  const rest = (addresses: readonly string[]) =>
    uniqueAddresses(addresses).filter((a) => {
      const k = a.toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  const cc = rest(lists.cc);
  return { to, cc, bcc: rest(lists.bcc) };
}
