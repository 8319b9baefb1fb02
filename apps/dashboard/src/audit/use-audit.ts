import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";
import type { AuditEvent } from "../api/types";

export interface AuditFilters {
  action?: string;
  actor?: string;
  since?: string;
  until?: string;
  before?: string;
}

export const AUDIT_PAGE_SIZE = 50;

/** One page of the audit log, newest first; `next_before` asks for the page after it (null on the last). */
export function useAuditEvents(projectId: string, filters: AuditFilters) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["audit", projectId, filters],
    queryFn: () =>
      unwrap<{ events: AuditEvent[]; next_before: string | null }>(
        api.GET("/admin/projects/{projectId}/audit-events", {
          params: { path: { projectId }, query: { ...filters, limit: String(AUDIT_PAGE_SIZE) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}
