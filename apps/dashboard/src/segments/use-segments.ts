import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { unwrap, useAdminClient } from "../api/client";
import type { SegmentFilter } from "./segment-rules";

// Response bodies of apps/public-api/src/segments/admin-segments.routes.ts.

export interface Segment {
  id: string;
  name: string;
  type: "static" | "dynamic";
  filter: SegmentFilter | null;
  member_count: number;
  created_at: string;
}

/** The preview's answer: `exact` false means an estimate ("about N"). */
export interface SegmentCount {
  count: number;
  exact: boolean;
}

export function useSegments(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["segments", projectId],
    queryFn: () =>
      unwrap<{ segments: Segment[] }>(
        api.GET("/admin/projects/{projectId}/segments", { params: { path: { projectId } } }),
      ),
  });
}

export function useCreateSegment(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; filter: SegmentFilter }) =>
      unwrap<{ segment: Segment }>(
        api.POST("/admin/projects/{projectId}/segments", {
          params: { path: { projectId } },
          body: { ...body, type: "dynamic" } as never,
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["segments", projectId] }),
  });
}

export function useDeleteSegment(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (segmentId: string) =>
      unwrap(
        api.DELETE("/admin/projects/{projectId}/segments/{segmentId}", {
          params: { path: { projectId, segmentId } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["segments", projectId] }),
  });
}

/** The preview call the builder is given (the page passes the admin API's; a test passes its own). */
export type CountFilter = (filter: SegmentFilter, signal: AbortSignal) => Promise<SegmentCount>;

export function usePreviewCall(projectId: string): CountFilter {
  const api = useAdminClient();
  return (filter, signal) =>
    unwrap<SegmentCount>(
      api.POST("/admin/projects/{projectId}/segments/preview", {
        params: { path: { projectId } },
        body: { filter } as never,
        signal,
      }),
    );
}

export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

export const PREVIEW_DEBOUNCE_MS = 400;

/**
 * The live count of a filter being built: asked once the rules have stood still for PREVIEW_DEBOUNCE_MS, the
 * previous answer kept on screen meanwhile, a superseded request aborted. Nothing waits on it: the page stays usable.
 */
export function useSegmentCount(filter: SegmentFilter | null, countFilter: CountFilter, key: string) {
  const json = useDebounced(filter ? JSON.stringify(filter) : null, PREVIEW_DEBOUNCE_MS);
  return useQuery({
    queryKey: ["segment-preview", key, json],
    queryFn: ({ signal }) => countFilter(JSON.parse(json!) as SegmentFilter, signal),
    enabled: json !== null,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    retry: false,
  });
}
