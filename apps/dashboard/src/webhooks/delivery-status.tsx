import type { ComponentProps } from "react";
import { Badge } from "../ui/badge";

const tone: Record<string, ComponentProps<typeof Badge>["tone"]> = {
  succeeded: "green",
  pending: "blue",
  failed: "amber",
  exhausted: "red",
  skipped: "neutral",
};

/** What each state means, said next to it (a screen reader hears the title as the badge's description). */
const meaning: Record<string, string> = {
  succeeded: "the receiver answered 2xx",
  pending: "waiting for its next attempt",
  failed: "the last attempt failed; it is retried",
  exhausted: "every attempt failed; redeliver it once the receiver is fixed",
  skipped: "the project had no URL for this mode",
};

export function DeliveryStatus({ status }: { status: string }) {
  return (
    <Badge tone={tone[status] ?? "neutral"} title={meaning[status]}>
      {status}
    </Badge>
  );
}
