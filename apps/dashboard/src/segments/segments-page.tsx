import type { ColumnDef } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { Link } from "react-router";
import { canEdit } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { DateTime } from "../ui/datetime";
import { Dialog, DialogClose } from "../ui/dialog";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { type Segment, useDeleteSegment, useSegments } from "./use-segments";

export default function SegmentsPage() {
  const { projectId, membership } = useCurrentProject();
  const mayEdit = canEdit(membership?.role);
  const list = useSegments(projectId);
  const remove = useDeleteSegment(projectId);
  const [removing, setRemoving] = useState<Segment | null>(null);
  const columns = useMemo<ColumnDef<Segment, unknown>[]>(
    () => [
      {
        header: "Name",
        cell: ({ row }) => (
          <Link className="text-blue-800 underline" to={`../leads?segment=${row.original.id}`}>
            {row.original.name}
          </Link>
        ),
      },
      {
        header: "Type",
        cell: ({ row }) => (
          <Badge tone={row.original.type === "dynamic" ? "blue" : "neutral"}>{row.original.type}</Badge>
        ),
      },
      { header: "Members now", cell: ({ row }) => row.original.member_count.toLocaleString("en-US") },
      { header: "Created", cell: ({ row }) => <DateTime iso={row.original.created_at} /> },
      {
        header: "Action",
        cell: ({ row }) => (
          <Button
            size="sm"
            variant="outline"
            disabled={!mayEdit}
            aria-label={`Delete segment ${row.original.name}`}
            onClick={() => setRemoving(row.original)}
          >
            Delete
          </Button>
        ),
      },
    ],
    [mayEdit],
  );
  const rows = list.data?.segments ?? [];
  return (
    <>
      <PageHeader title="Segments">
        {mayEdit && (
          <Button asChild>
            <Link to="new">New dynamic segment</Link>
          </Button>
        )}
      </PageHeader>
      <p className="mb-6 max-w-2xl text-sm text-slate-700">
        A dynamic segment is a rule over your leads (attributes, tags, consent, events): its members follow
        the rule as leads change. A static segment holds the leads added to it through the API. Open one to
        see its leads.
      </p>
      <ErrorMessage error={remove.error} title="Could not delete the segment" />
      {list.isPending && <Loading what="the segments" />}
      <ErrorMessage error={list.error} title="Could not load the segments" />
      {list.data &&
        (rows.length ? (
          <DataTable caption="Segments, oldest first" columns={columns} data={rows} />
        ) : (
          <EmptyState title="No segments yet">
            Build a dynamic segment from rules over your leads, and see how many match as you go.
          </EmptyState>
        ))}
      <Dialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={`Delete the segment ${removing?.name ?? ""}?`}
        description="Its leads stay; only the segment goes. A campaign that targets it can no longer be sent to it."
      >
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button
            variant="destructive"
            disabled={remove.isPending}
            onClick={() => removing && remove.mutate(removing.id, { onSettled: () => setRemoving(null) })}
          >
            Delete
          </Button>
        </div>
      </Dialog>
    </>
  );
}
