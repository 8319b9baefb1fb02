import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";

// Response bodies of apps/public-api/src/leads/admin-leads.routes.ts (lead-row.ts's leadView, get-lead-timeline.ts).

export const SUBSCRIPTIONS = ["unknown", "subscribed", "unsubscribed"] as const;

export interface Lead {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  attributes: Record<string, unknown>;
  tags: string[];
  subscription: (typeof SUBSCRIPTIONS)[number];
  subscription_changed_at: string | null;
  subscription_source: string | null;
  source: string;
  created_at: string;
  updated_at: string;
}

export interface LeadWithSegments extends Lead {
  segments: { id: string; name: string; type: "static" | "dynamic" }[];
}

export interface LeadsPage {
  data: Lead[];
  pagination: { page: number; per_page: number; total: number; total_pages: number };
  /** false past 10,000 leads: the total is PostgreSQL's estimate */
  total_exact: boolean;
}

/** The list's filters as the URL names them; `attr` is `name=value` (attribute equality). */
export interface LeadFilters {
  email?: string;
  tag?: string;
  segment?: string;
  subscription?: string;
  attr?: string;
  created_since?: string;
  created_until?: string;
  page?: string;
}

export const LEAD_PAGE_SIZE = 50;

/** A date input's day as the instant the API takes: the start of the day, or its end for `until`. */
const dayInstant = (day: string | undefined, end: boolean) =>
  day ? `${day}T${end ? "23:59:59.999" : "00:00:00.000"}Z` : undefined;

export function useLeads(projectId: string, f: LeadFilters) {
  const api = useAdminClient();
  const eq = f.attr?.indexOf("=") ?? -1;
  const attributes =
    f.attr && eq > 0 ? { [f.attr.slice(0, eq).trim()]: f.attr.slice(eq + 1).trim() } : undefined;
  return useQuery({
    queryKey: ["leads", projectId, f],
    queryFn: () =>
      unwrap<LeadsPage>(
        api.GET("/admin/projects/{projectId}/leads", {
          params: {
            path: { projectId },
            query: {
              email: f.email,
              tag: f.tag,
              segment: f.segment,
              subscription: f.subscription,
              created_since: dayInstant(f.created_since, false),
              created_until: dayInstant(f.created_until, true),
              attributes,
              page: f.page,
              per_page: String(LEAD_PAGE_SIZE),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useLead(projectId: string, leadId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["lead", projectId, leadId],
    queryFn: () =>
      unwrap<{ lead: LeadWithSegments }>(
        api.GET("/admin/projects/{projectId}/leads/{leadId}", { params: { path: { projectId, leadId } } }),
      ),
  });
}

export type TimelineItem =
  | { kind: "event"; id: string; at: string; name: string; properties: Record<string, unknown> }
  | {
      kind: "email";
      id: string;
      at: string;
      subject: string;
      status: string;
      email_type: string;
      campaign_id: string | null;
      is_test: boolean;
    }
  | {
      kind: "reply";
      id: string;
      at: string;
      thread_id: string;
      from_email: string;
      subject: string;
      reply_text: string;
      reply_kind: string;
    }
  | {
      kind: "order";
      id: string;
      at: string;
      order_id: string;
      shop_domain: string;
      total_minor: string;
      currency: string;
      cancelled: boolean;
      test: boolean;
      attributed_campaign_id: string | null;
    };

/** A lead's timeline, newest first, a page at a time ("Show older" asks for the next). */
export function useLeadTimeline(projectId: string, leadId: string) {
  const api = useAdminClient();
  return useInfiniteQuery({
    queryKey: ["lead-timeline", projectId, leadId],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap<{ items: TimelineItem[]; next_cursor: string | null }>(
        api.GET("/admin/projects/{projectId}/leads/{leadId}/timeline", {
          params: { path: { projectId, leadId }, query: { cursor: pageParam, limit: "50" } },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

function useLeadChange<V>(
  projectId: string,
  leadId: string,
  call: (api: ReturnType<typeof useAdminClient>, v: V) => Promise<unknown>,
) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: V) => call(api, v),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["lead", projectId, leadId] });
      void qc.invalidateQueries({ queryKey: ["leads", projectId] });
    },
  });
}

export interface LeadEdit {
  first_name: string | null;
  last_name: string | null;
  attributes: Record<string, unknown>;
}

export function useUpdateLead(projectId: string, leadId: string) {
  return useLeadChange(projectId, leadId, (api, body: LeadEdit) =>
    unwrap(
      api.PUT("/admin/projects/{projectId}/leads/{leadId}", {
        params: { path: { projectId, leadId } },
        body: body as never,
      }),
    ),
  );
}

export function useTagLead(projectId: string, leadId: string) {
  return useLeadChange(projectId, leadId, (api, { tag, remove }: { tag: string; remove: boolean }) => {
    const opts = { params: { path: { projectId, leadId } }, body: { tags: [tag] } };
    return unwrap(
      remove
        ? api.DELETE("/admin/projects/{projectId}/leads/{leadId}/tags", opts)
        : api.POST("/admin/projects/{projectId}/leads/{leadId}/tags", opts),
    );
  });
}

export function useDeleteLead(projectId: string, leadId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap<{ deleted_events: number }>(
        api.DELETE("/admin/projects/{projectId}/leads/{leadId}", { params: { path: { projectId, leadId } } }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["leads", projectId] }),
  });
}
