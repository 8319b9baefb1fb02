/** `datetime-local` values are the browser's local time; the API wants ISO 8601 with an offset. */
export const localToIso = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** An ISO date-time from the URL as a `datetime-local` value in the browser's time zone ("" when absent or bad). */
export const isoToLocal = (iso: string | null) => {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? ""
    : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function DateTime({ iso }: { iso: string }) {
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;
}
