import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";

export type OverviewRange = "24h" | "7d" | "30d";
export type OverviewMode = "live" | "test";

export interface Counts {
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  failed: number;
}

/** GET /admin/projects/:id/overview (apps/public-api/src/overview/get-overview.ts). */
export interface Overview {
  range: OverviewRange;
  mode: OverviewMode;
  time_zone: string;
  bucket: "hour" | "day";
  series: (Counts & { at: string })[];
  totals: Counts;
  rates: Record<
    "bounce_rate" | "complaint_rate" | "delivery_rate" | "open_rate" | "click_rate",
    number | null
  >;
  rate_lines: { bounce_rate: number; complaint_rate: number; complaint_rate_max: number };
  quota: {
    today: { charged: number | null; daily_cap: number | null };
    month: { period: string; live_sent: number; limit: number };
    provider: {
      max_24_hour_send: number;
      sent_last_24_hours: number;
      max_send_rate: number;
      read_at: string;
    } | null;
  };
}

export function useOverview(projectId: string, range: OverviewRange, mode: OverviewMode) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["overview", projectId, range, mode],
    queryFn: () =>
      unwrap<Overview>(
        api.GET("/admin/projects/{projectId}/overview", {
          params: { path: { projectId }, query: { range, mode } },
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: 60_000,
  });
}
