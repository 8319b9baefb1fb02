import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";
import type { Invitation, InvitationSent, Role } from "../api/types";

export function useInvitations(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["invitations", projectId],
    queryFn: async () =>
      (
        await unwrap<{ invitations: Invitation[] }>(
          api.GET("/admin/projects/{projectId}/invitations", { params: { path: { projectId } } }),
        )
      ).invitations,
  });
}

export function useInvite(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; role: Role }) =>
      unwrap<InvitationSent>(
        api.POST("/admin/projects/{projectId}/invitations", { params: { path: { projectId } }, body }),
      ),
    onSettled: () => qc.invalidateQueries({ queryKey: ["invitations", projectId] }),
  });
}

/** Sends an invitation again with a new link; the old link stops working. */
export function useResendInvitation(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (invitationId: string) =>
      unwrap<InvitationSent>(
        api.POST("/admin/projects/{projectId}/invitations/{invitationId}/resend", {
          params: { path: { projectId, invitationId } },
        }),
      ),
    onSettled: () => qc.invalidateQueries({ queryKey: ["invitations", projectId] }),
  });
}

export function useRevokeInvitation(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (invitationId: string) =>
      unwrap<unknown>(
        api.DELETE("/admin/projects/{projectId}/invitations/{invitationId}", {
          params: { path: { projectId, invitationId } },
        }),
      ),
    onSettled: () => qc.invalidateQueries({ queryKey: ["invitations", projectId] }),
  });
}
