import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";
import type { Template, TemplateTestSent } from "../api/types";

export function useTemplates(projectId: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["templates", projectId],
    queryFn: async () =>
      (
        await unwrap<{ templates: Template[] }>(
          api.GET("/admin/projects/{projectId}/templates", { params: { path: { projectId } } }),
        )
      ).templates,
  });
}

export interface TemplateInput {
  name: string;
  subject: string;
  html: string;
  text: string | null;
}

/** Creates a template (no id) or updates one. */
export function useSaveTemplate(projectId: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body }: { id?: string; body: TemplateInput }) => {
      const call = id
        ? api.PUT("/admin/projects/{projectId}/templates/{templateId}", {
            params: { path: { projectId, templateId: id } },
            body,
          })
        : api.POST("/admin/projects/{projectId}/templates", { params: { path: { projectId } }, body });
      return (await unwrap<{ template: Template }>(call)).template;
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ["templates", projectId] }),
  });
}

export interface TemplateTestInput {
  to: string;
  from?: string;
  variables: Record<string, unknown>;
  mode: "test" | "live";
}

/** Sends the saved template to one address with the editor's sample variables (a test send unless live). */
export function useSendTestTemplate(projectId: string, templateId: string) {
  const api = useAdminClient();
  return useMutation({
    mutationFn: (body: TemplateTestInput) =>
      unwrap<TemplateTestSent>(
        api.POST("/admin/projects/{projectId}/templates/{templateId}/send-test", {
          params: { path: { projectId, templateId } },
          body,
        }),
      ),
  });
}
