import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "react-router";
import { unwrap, useAdminClient } from "../api/client";
import type { Membership, Project } from "../api/types";
import { useSession } from "../auth/use-session";

/** The project the URL names (/p/:projectId/…) and the signed-in user's membership of it. */
export function useCurrentProject(): { projectId: string; membership: Membership | undefined } {
  const { projectId = "" } = useParams();
  const session = useSession();
  return { projectId, membership: session.data?.memberships.find((m) => m.project_id === projectId) };
}

export function useProject(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["project", projectId],
    queryFn: async () =>
      (
        await unwrap<{ project: Project }>(
          api.GET("/admin/projects/{projectId}", { params: { path: { projectId } } }),
        )
      ).project,
  });
}

export type ProjectChanges = Partial<
  Pick<
    Project,
    | "webhook_url"
    | "webhook_url_dev"
    | "inbound_webhook_url"
    | "inbound_webhook_url_dev"
    | "default_timezone"
    | "postal_address"
    | "on_send_unknown"
  >
>;

export function useUpdateProject(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: ProjectChanges) =>
      (
        await unwrap<{ project: Project }>(
          api.PATCH("/admin/projects/{projectId}", { params: { path: { projectId } }, body }),
        )
      ).project,
    onSuccess: (project) => qc.setQueryData(["project", projectId], project),
  });
}
