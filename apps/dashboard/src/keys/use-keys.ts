import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";
import type { Keys } from "../api/types";

export type KeyMode = "live" | "test";

export function useKeys(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["keys", projectId],
    queryFn: () =>
      unwrap<Keys>(api.GET("/admin/projects/{projectId}/keys", { params: { path: { projectId } } })),
  });
}

/** A new key for one mode; the API revokes that mode's previous key at once and leaves the other mode's alone. */
export function useRegenerateKey(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (mode: KeyMode) =>
      unwrap<{ mode: KeyMode; key: string }>(
        api.POST("/admin/projects/{projectId}/keys/{mode}/regenerate", {
          params: { path: { projectId, mode } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["keys", projectId] }),
  });
}
