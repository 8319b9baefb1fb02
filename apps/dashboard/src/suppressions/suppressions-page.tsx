import type { ColumnDef } from "@tanstack/react-table";
import { type FormEvent, useMemo, useState } from "react";
import { useSearchParams } from "react-router";
import { canEdit } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { DateTime } from "../ui/datetime";
import { Dialog, DialogClose } from "../ui/dialog";
import { Field, Input, Select } from "../ui/input";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import {
  type Suppression,
  SUPPRESSION_REASONS,
  type SuppressionFilters,
  type SuppressionReason,
  useAddSuppression,
  useRemoveSuppression,
  useSuppressions,
} from "./use-suppressions";

const FILTERS = ["search", "reason"] as const;

const REASON_TONE: Record<string, "red" | "amber" | "neutral" | "blue"> = {
  bounce: "red",
  complaint: "red",
  unsubscribed: "amber",
  manual: "blue",
};

function filtersOf(params: URLSearchParams): SuppressionFilters {
  const filters: SuppressionFilters = {};
  for (const k of [...FILTERS, "cursor"] as const) {
    const v = params.get(k);
    if (v) filters[k] = v;
  }
  return filters;
}

export default function SuppressionsPage() {
  const { projectId, membership } = useCurrentProject();
  const mayEdit = canEdit(membership?.role);
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const page = useSuppressions(projectId, filters);
  const rows = useMemo(() => page.data?.suppressions ?? [], [page.data]);
  const [removing, setRemoving] = useState<Suppression | null>(null);
  const remove = useRemoveSuppression(projectId);
  const columns = useMemo<ColumnDef<Suppression, unknown>[]>(
    () => [
      { header: "Address", cell: ({ row }) => row.original.email },
      {
        header: "Reason",
        cell: ({ row }) => (
          <Badge tone={REASON_TONE[row.original.reason] ?? "neutral"}>{row.original.reason}</Badge>
        ),
      },
      { header: "Since", cell: ({ row }) => <DateTime iso={row.original.created_at} /> },
      {
        header: "Action",
        cell: ({ row }) => (
          <Button
            size="sm"
            variant="outline"
            disabled={!mayEdit}
            aria-describedby={mayEdit ? undefined : "why-readonly"}
            aria-label={`Remove ${row.original.email}`}
            onClick={() => setRemoving(row.original)}
          >
            Remove
          </Button>
        ),
      },
    ],
    [mayEdit],
  );

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTERS) {
      const v = String(data.get(k) ?? "").trim();
      if (v) next.set(k, v);
    }
    setParams(next);
  };
  const goNext = () => {
    if (!page.data?.next_cursor) return;
    const next = new URLSearchParams(params);
    next.set("cursor", page.data.next_cursor);
    setParams(next);
  };
  const goFirst = () => {
    const next = new URLSearchParams(params);
    next.delete("cursor");
    setParams(next);
  };

  return (
    <>
      <PageHeader title="Suppressions" />
      <p className="mb-6 max-w-2xl text-sm text-slate-700">
        No email is sent to these addresses: a send to one is answered as skipped. Hard bounces, complaints
        and unsubscribes add theirs on their own; add one by hand here, or remove one to send to it again.
      </p>
      <AddForm projectId={projectId} mayEdit={mayEdit} />
      {!mayEdit && (
        <p id="why-readonly" className="mb-4 text-sm text-slate-700">
          You are a viewer of this project: you can see the list, but only an owner, admin or member may add
          or remove addresses.
        </p>
      )}
      <form
        key={params.toString()}
        onSubmit={apply}
        role="search"
        className="mb-6 grid gap-3 rounded-lg border border-slate-200 bg-white p-4 md:grid-cols-3"
      >
        <Field label="Search" hint="the start of the address">
          {(p) => <Input {...p} name="search" defaultValue={filters.search ?? ""} />}
        </Field>
        <Field label="Reason">
          {(p) => (
            <Select {...p} name="reason" defaultValue={filters.reason ?? ""}>
              <option value="">Any reason</option>
              {SUPPRESSION_REASONS.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <div className="flex items-end gap-2">
          <Button type="submit">Search</Button>
          <Button type="button" variant="ghost" onClick={() => setParams({})}>
            Clear
          </Button>
        </div>
      </form>
      {remove.isSuccess && (
        <p role="status" className="mb-4 text-sm text-green-800">
          Removed {remove.data.removed.email}: emails to it are sent again.
        </p>
      )}
      <ErrorMessage error={remove.error} title="Could not remove the address" />
      {page.isPending && <Loading what="the suppressions" />}
      <ErrorMessage error={page.error} title="Could not load the suppressions" />
      {page.data &&
        (rows.length ? (
          <DataTable caption="Suppressed addresses, in address order" columns={columns} data={rows} />
        ) : filters.cursor ? (
          <EmptyState title="No more addresses">This is past the last page: go back to the first.</EmptyState>
        ) : filters.search || filters.reason ? (
          <EmptyState title="No suppressed address matches">
            {filters.search
              ? `No suppressed address starts with “${filters.search}”`
              : "None has this reason"}
            {filters.search && filters.reason ? " with this reason" : ""}. Clear the search to see them all.
          </EmptyState>
        ) : (
          <EmptyState title="No suppressed addresses">
            Nothing is held back yet. Addresses that bounce hard, complain or unsubscribe are added here on
            their own; add one above to stop sending to it.
          </EmptyState>
        ))}
      <nav aria-label="Suppression pages" className="mt-4 flex gap-2">
        <Button variant="outline" size="sm" onClick={goFirst} disabled={!filters.cursor}>
          Back to the first page
        </Button>
        <Button variant="outline" size="sm" onClick={goNext} disabled={!page.data?.next_cursor}>
          Next
        </Button>
      </nav>
      <Dialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={`Remove ${removing?.email ?? ""} from the suppression list?`}
        description={
          <>
            Emails to this address are <strong>sent again</strong> from now on
            {removing?.reason === "bounce" || removing?.reason === "complaint"
              ? `, although it was suppressed after a ${removing.reason}: sending to it again can hurt your sender reputation`
              : ""}
            .
          </>
        }
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
            Remove
          </Button>
        </div>
      </Dialog>
    </>
  );
}

function AddForm({ projectId, mayEdit }: { projectId: string; mayEdit: boolean }) {
  const add = useAddSuppression(projectId);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    add.mutate(
      {
        email: String(data.get("email") ?? "").trim(),
        reason: String(data.get("reason") ?? "manual") as SuppressionReason,
      },
      { onSuccess: () => form.reset() },
    );
  };
  return (
    <section
      aria-labelledby="add-suppression"
      className="mb-6 rounded-lg border border-slate-200 bg-white p-4"
    >
      <h2 id="add-suppression" className="mb-3 text-lg font-semibold text-slate-900">
        Add an address
      </h2>
      <form onSubmit={submit} className="grid gap-3 md:grid-cols-3">
        <Field label="Email address">
          {(p) => <Input {...p} type="email" name="email" required disabled={!mayEdit} />}
        </Field>
        <Field label="Reason" hint="manual, unless you carry one over">
          {(p) => (
            <Select {...p} name="reason" defaultValue="manual" disabled={!mayEdit}>
              {SUPPRESSION_REASONS.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <div className="flex items-end">
          <Button type="submit" disabled={!mayEdit || add.isPending}>
            Add suppression
          </Button>
        </div>
      </form>
      {add.isSuccess && (
        <p role="status" className="mt-3 text-sm text-green-800">
          {add.data.suppression.email} is suppressed: no email is sent to it.
        </p>
      )}
      <div className="mt-3">
        <ErrorMessage error={add.error} title="Could not add the address" />
      </div>
    </section>
  );
}
