import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "react-router";
import { unwrap, useAdminClient } from "../api/client";
import type { Membership, Project } from "../api/types";
import { useSession } from "../auth/use-session";

/**
 * The projects the signed-in user may open, as memberships. A member's come with the session; a platform owner may
 * open every project (the API lets them), so theirs are GET /admin/projects too, each one they are not a member of
 * listed with the owner's rights (the role the API gives them there). Without this, a platform owner with no
 * membership saw an empty switcher.
 */
/** A project of GET /admin/projects (a platform owner's answer; it holds more fields than the switcher reads). */
interface ProjectSummary {
  id: string;
  name: string;
}

export type AccessibleProject = Membership & { platform?: boolean };

export function useProjects(): { projects: AccessibleProject[]; isPending: boolean; error: unknown } {
  const session = useSession();
  const api = useAdminClient();
  const platformOwner = session.data?.user.platform_owner === true;
  const all = useQuery({
    queryKey: ["projects", "all"],
    enabled: platformOwner,
    staleTime: 60_000,
    queryFn: async () => {
      const projects: ProjectSummary[] = [];
      let cursor: string | undefined;
      // 500 a page (the API's most); a keyset cursor to the end
      for (let i = 0; i < 20; i++) {
        const page = await unwrap<{ projects: ProjectSummary[]; next_cursor: string | null }>(
          api.GET("/admin/projects", { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }),
        );
        projects.push(...page.projects);
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      return projects;
    },
  });
  const memberships = session.data?.memberships ?? [];
  const mine = new Set(memberships.map((m) => m.project_id));
  // a platform owner may do everything in every project (accounts/admin-access.ts), whatever their membership says
  const own: AccessibleProject[] = platformOwner
    ? memberships.map((m) => ({ ...m, role: "owner", platform: true }))
    : memberships;
  const others: AccessibleProject[] = (platformOwner ? (all.data ?? []) : [])
    .filter((p) => !mine.has(p.id))
    .map((p) => ({ project_id: p.id, project_name: p.name, role: "owner", platform: true }));
  return {
    projects: [...own, ...others],
    isPending: session.isPending || (platformOwner && all.isPending),
    error: all.error,
  };
}

/** The project the URL names (/p/:projectId/…) and the signed-in user's membership of it. */
export function useCurrentProject(): {
  projectId: string;
  membership: AccessibleProject | undefined;
  isPending: boolean;
} {
  const { projectId = "" } = useParams();
  const { projects, isPending } = useProjects();
  return { projectId, membership: projects.find((m) => m.project_id === projectId), isPending };
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
