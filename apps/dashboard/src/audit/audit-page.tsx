import type { ColumnDef } from "@tanstack/react-table";
import { type FormEvent, useMemo } from "react";
import { useSearchParams } from "react-router";
import type { AuditEvent } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/input";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { type AuditFilters, useAuditEvents } from "./use-audit";

const FILTERS = ["action", "actor", "since", "until"] as const;

/** `datetime-local` values are the browser's local time; the API wants ISO 8601 with an offset. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
const toLocal = (iso: string | null) => {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? ""
    : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

const columns: ColumnDef<AuditEvent, unknown>[] = [
  {
    header: "When",
    cell: ({ row }) => (
      <time dateTime={row.original.created_at}>{new Date(row.original.created_at).toLocaleString()}</time>
    ),
  },
  { header: "Action", cell: ({ row }) => <code>{row.original.action}</code> },
  { header: "Who", cell: ({ row }) => row.original.actor.email ?? row.original.actor.type },
  {
    header: "Result",
    cell: ({ row }) => {
      const s = row.original.status;
      return s === null ? "—" : <Badge tone={s < 400 ? "green" : "red"}>{s}</Badge>;
    },
  },
  { header: "Route", cell: ({ row }) => <span className="text-xs">{row.original.route ?? "—"}</span> },
  { header: "From", cell: ({ row }) => row.original.ip ?? "—" },
];

export default function AuditPage() {
  const { projectId } = useCurrentProject();
  const [params, setParams] = useSearchParams();
  const filters: AuditFilters = {};
  for (const k of [...FILTERS, "before"] as const) {
    const v = params.get(k);
    if (v) filters[k] = v;
  }
  const page = useAuditEvents(projectId, filters);
  const events = useMemo(() => page.data?.events ?? [], [page.data]);

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTERS) {
      const raw = String(data.get(k) ?? "").trim();
      const v = k === "since" || k === "until" ? toIso(raw) : raw;
      if (v) next.set(k, v);
    }
    setParams(next); // a new filter starts from the newest page
  };
  const goOlder = () => {
    if (!page.data?.next_before) return;
    const next = new URLSearchParams(params);
    next.set("before", page.data.next_before);
    setParams(next);
  };
  const goNewest = () => {
    const next = new URLSearchParams(params);
    next.delete("before");
    setParams(next);
  };

  return (
    <>
      <PageHeader title="Audit log" />
      <p className="mb-4 max-w-2xl text-sm text-slate-700">
        Every change made through the admin API, by whom, when and from where. It cannot be edited.
      </p>
      <form
        key={params.toString()}
        onSubmit={apply}
        className="mb-6 grid gap-3 rounded-lg border border-slate-200 bg-white p-4 md:grid-cols-5"
      >
        <Field label="Action" hint="e.g. keys.regenerate">
          {(p) => <Input {...p} name="action" defaultValue={params.get("action") ?? ""} />}
        </Field>
        <Field label="Actor" hint="an email">
          {(p) => <Input {...p} name="actor" defaultValue={params.get("actor") ?? ""} />}
        </Field>
        <Field label="Since">
          {(p) => (
            <Input {...p} type="datetime-local" name="since" defaultValue={toLocal(params.get("since"))} />
          )}
        </Field>
        <Field label="Until">
          {(p) => (
            <Input {...p} type="datetime-local" name="until" defaultValue={toLocal(params.get("until"))} />
          )}
        </Field>
        <div className="flex items-end gap-2">
          <Button type="submit">Filter</Button>
          <Button type="button" variant="ghost" onClick={() => setParams(new URLSearchParams())}>
            Clear
          </Button>
        </div>
      </form>
      {page.isPending && <Loading what="the audit log" />}
      <ErrorMessage error={page.error} title="Could not load the audit log" />
      {page.data &&
        (events.length ? (
          <DataTable caption="Audit events, newest first" columns={columns} data={events} />
        ) : (
          <EmptyState title="No audit events match">
            {Object.keys(filters).length
              ? "Widen the filters or clear them to see every event."
              : "Changes to this project (keys, settings, team, templates) will be listed here as they happen."}
          </EmptyState>
        ))}
      <nav aria-label="Audit log pages" className="mt-4 flex gap-2">
        <Button variant="outline" size="sm" onClick={goNewest} disabled={!filters.before}>
          Newest
        </Button>
        <Button variant="outline" size="sm" onClick={goOlder} disabled={!page.data?.next_before}>
          Older
        </Button>
      </nav>
    </>
  );
}
