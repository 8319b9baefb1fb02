import type { ColumnDef } from "@tanstack/react-table";
import { Link } from "react-router";
import type { Template } from "../api/types";
import { canEdit } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { useTemplates } from "./use-templates";

const columns: ColumnDef<Template, unknown>[] = [
  {
    header: "Name",
    cell: ({ row }) => (
      <Link className="text-blue-800 underline" to={row.original.template_id}>
        {row.original.name}
      </Link>
    ),
  },
  { header: "Subject", accessorKey: "subject" },
  {
    header: "Id (for send-template-email)",
    cell: ({ row }) => <code className="text-xs">{row.original.template_id}</code>,
  },
  { header: "Updated", cell: ({ row }) => new Date(row.original.updated_at).toLocaleString() },
];

export default function TemplatesPage() {
  const { projectId, membership } = useCurrentProject();
  const templates = useTemplates(projectId);
  return (
    <>
      <PageHeader title="Templates">
        {canEdit(membership?.role) && (
          <Button asChild>
            <Link to="new">New template</Link>
          </Button>
        )}
      </PageHeader>
      {templates.isPending && <Loading what="the templates" />}
      <ErrorMessage error={templates.error} title="Could not load the templates" />
      {templates.data &&
        (templates.data.length ? (
          <DataTable caption="Templates" columns={columns} data={templates.data} />
        ) : (
          <EmptyState title="No templates yet">
            Create one with “New template”, then send it with <code>POST /v1/send-template-email</code> and
            its id.
          </EmptyState>
        ))}
    </>
  );
}
