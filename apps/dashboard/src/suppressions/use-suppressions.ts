import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";

// Response bodies of apps/public-api/src/suppressions/suppressions.routes.ts.

/** bounce and complaint come from the provider, unsubscribed from the link in an email, manual from this page. */
export const SUPPRESSION_REASONS = ["manual", "bounce", "complaint", "unsubscribed"] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface Suppression {
  id: string;
  email: string;
  reason: string;
  source_activity_id: string | null;
  created_at: string;
}

export interface SuppressionFilters {
  search?: string;
  reason?: string;
  cursor?: string;
}

export const SUPPRESSION_PAGE_SIZE = 50;

export function useSuppressions(projectId: string, filters: SuppressionFilters) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["suppressions", projectId, filters],
    queryFn: () =>
      unwrap<{ suppressions: Suppression[]; next_cursor: string | null }>(
        api.GET("/admin/projects/{projectId}/suppressions", {
          params: { path: { projectId }, query: { ...filters, limit: String(SUPPRESSION_PAGE_SIZE) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useAddSuppression(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; reason: SuppressionReason }) =>
      unwrap<{ suppression: Suppression }>(
        api.POST("/admin/projects/{projectId}/suppressions", { params: { path: { projectId } }, body }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["suppressions", projectId] }),
  });
}

/** Lift a suppression (by its id): emails to the address are sent again. */
export function useRemoveSuppression(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (suppression: string) =>
      unwrap<{ removed: Suppression }>(
        api.DELETE("/admin/projects/{projectId}/suppressions/{suppression}", {
          params: { path: { projectId, suppression } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["suppressions", projectId] }),
  });
}
