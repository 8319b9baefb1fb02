import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";
import type { ActivityDetail, ActivityPage, ActivityStatus } from "../api/types";

export type ActivityMode = "live" | "test";

/** The list's filters as the URL and the API both name them (`status` is a comma-separated list). */
export interface ActivityFilters {
  mode: ActivityMode;
  status?: string;
  recipient?: string;
  campaign_id?: string;
  since?: string;
  until?: string;
  cursor?: string;
}

export const ACTIVITY_PAGE_SIZE = 50;

/** One page of the project's activities, newest first; `next_cursor` asks for the page after it (null on the last). */
export function useActivities(projectId: string, filters: ActivityFilters) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["activities", projectId, filters],
    queryFn: () =>
      unwrap<ActivityPage>(
        api.GET("/admin/projects/{projectId}/activities", {
          params: {
            path: { projectId },
            query: {
              ...filters,
              status: filters.status ? (filters.status.split(",") as ActivityStatus[]) : undefined,
              limit: String(ACTIVITY_PAGE_SIZE),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** One activity: what was sent, its events and its webhook deliveries. */
export function useActivity(projectId: string, activityId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["activity", projectId, activityId],
    queryFn: () =>
      unwrap<ActivityDetail>(
        api.GET("/admin/projects/{projectId}/activities/{activityId}", {
          params: { path: { projectId, activityId } },
        }),
      ),
  });
}

/** Send a finished webhook delivery again (platform owners only: the API refuses others with its own words). */
export function useRedeliver(projectId: string, activityId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap<unknown>(
        api.POST("/admin/webhook-deliveries/{deliveryId}/redeliver", { params: { path: { deliveryId } } }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["activity", projectId, activityId] }),
  });
}
