import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";

// Response bodies of apps/public-api/src/webhooks/webhooks.routes.ts (the admin OpenAPI document gives only their
// descriptions).

/** pending: waiting for its next attempt; failed: being retried; exhausted: gave up; skipped: no URL for its mode. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "exhausted", "skipped"] as const;
/** The states no attempt follows: only these can be sent again. */
export const FINISHED = new Set(["succeeded", "exhausted", "skipped"]);

export interface Delivery {
  id: string;
  event_id: string;
  kind: "outbound" | "inbound";
  event: string;
  is_test: boolean;
  url: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Attempt {
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** the first 500 characters of the receiver's answer */
  response_excerpt: string | null;
  created_at: string;
}

export interface Endpoint {
  setting: "webhook_url" | "webhook_url_dev" | "inbound_webhook_url" | "inbound_webhook_url_dev";
  kind: "outbound" | "inbound";
  mode: "live" | "test";
  url: string | null;
  failing_since: string | null;
}

/** The list's filters as the URL and the API both name them (`status` is a comma-separated list). */
export interface DeliveryFilters {
  mode: "live" | "test";
  status?: string;
  event?: string;
  cursor?: string;
}

export const DELIVERY_PAGE_SIZE = 50;

export function useDeliveries(projectId: string, filters: DeliveryFilters) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["webhook-deliveries", projectId, filters],
    queryFn: () =>
      unwrap<{ deliveries: Delivery[]; next_cursor: string | null }>(
        api.GET("/admin/projects/{projectId}/webhook-deliveries", {
          params: { path: { projectId }, query: { ...filters, limit: String(DELIVERY_PAGE_SIZE) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useDelivery(projectId: string, deliveryId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["webhook-delivery", projectId, deliveryId],
    queryFn: () =>
      unwrap<{ delivery: Delivery & { body: string }; attempts: Attempt[] }>(
        api.GET("/admin/projects/{projectId}/webhook-deliveries/{deliveryId}", {
          params: { path: { projectId, deliveryId } },
        }),
      ),
  });
}

export function useEndpoints(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["webhook-endpoints", projectId],
    queryFn: () =>
      unwrap<{ endpoints: Endpoint[] }>(
        api.GET("/admin/projects/{projectId}/webhook-endpoints", { params: { path: { projectId } } }),
      ),
  });
}

/** Send a finished delivery again: it goes back to pending and the webhook-dispatcher sends it within seconds. */
export function useRedeliverDelivery(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap<{ delivery_id: string; status: string }>(
        api.POST("/admin/projects/{projectId}/webhook-deliveries/{deliveryId}/redeliver", {
          params: { path: { projectId, deliveryId } },
        }),
      ),
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ["webhook-delivery", projectId] }),
        qc.invalidateQueries({ queryKey: ["webhook-deliveries", projectId] }),
      ]),
  });
}
