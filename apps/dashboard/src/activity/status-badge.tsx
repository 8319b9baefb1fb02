import type { ComponentProps } from "react";
import { Badge } from "../ui/badge";

const tone: Record<string, ComponentProps<typeof Badge>["tone"]> = {
  delivered: "green",
  opened: "green",
  clicked: "green",
  sent: "blue",
  bounced: "red",
  complained: "red",
  failed: "red",
  scheduled: "amber",
  queued: "amber",
  sending: "amber",
  cancelled: "neutral",
};

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={tone[status] ?? "neutral"}>{status}</Badge>;
}
