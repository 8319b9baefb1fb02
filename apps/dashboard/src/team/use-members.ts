import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";
import type { Member, Role } from "../api/types";

export function useMembers(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["members", projectId],
    queryFn: async () =>
      (
        await unwrap<{ members: Member[] }>(
          api.GET("/admin/projects/{projectId}/members", { params: { path: { projectId } } }),
        )
      ).members,
  });
}

/** Adds a user (by email) or changes a member's role: the same PUT. */
export function usePutMember(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; role: Role }) =>
      unwrap<unknown>(
        api.PUT("/admin/projects/{projectId}/members", { params: { path: { projectId } }, body }),
      ),
    onSettled: () => qc.invalidateQueries({ queryKey: ["members", projectId] }),
  });
}

export function useRemoveMember(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) =>
      unwrap<unknown>(
        api.DELETE("/admin/projects/{projectId}/members/{userId}", {
          params: { path: { projectId, userId } },
        }),
      ),
    onSettled: () => qc.invalidateQueries({ queryKey: ["members", projectId] }),
  });
}
