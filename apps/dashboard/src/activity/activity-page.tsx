import type { ColumnDef } from "@tanstack/react-table";
import { type FormEvent, useMemo } from "react";
import { Link, useSearchParams } from "react-router";
import { type Activity, ACTIVITY_STATUSES } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { cn } from "../ui/cn";
import { DateTime, isoToLocal, localToIso } from "../ui/datetime";
import { Field, Input, Select } from "../ui/input";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { StatusBadge } from "./status-badge";
import { type ActivityFilters, type ActivityMode, useActivities } from "./use-activities";

const FILTERS = ["status", "recipient", "campaign_id", "since", "until"] as const;

/** The status choices: each status, and the groups an operator looks for. */
const STATUS_CHOICES: { value: string; label: string }[] = [
  { value: "", label: "Any status" },
  { value: "bounced,complained,failed", label: "Problems (bounced, complained, failed)" },
  { value: "opened,clicked", label: "Engaged (opened, clicked)" },
  { value: "scheduled,queued,sending", label: "Not sent yet (scheduled, queued, sending)" },
  ...ACTIVITY_STATUSES.map((s) => ({ value: s, label: s })),
];

/** The URL's filters (what a reload or a shared link keeps). */
function filtersOf(params: URLSearchParams): ActivityFilters {
  const filters: ActivityFilters = { mode: params.get("mode") === "test" ? "test" : "live" };
  for (const k of [...FILTERS, "cursor"] as const) {
    const v = params.get(k);
    if (v) filters[k] = v;
  }
  return filters;
}

export default function ActivityPage() {
  const { projectId } = useCurrentProject();
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const page = useActivities(projectId, filters);
  const activities = useMemo(() => page.data?.activities ?? [], [page.data]);
  const filtered = FILTERS.some((k) => filters[k]);
  const columns = useMemo(() => columnsFor(params.toString()), [params]);

  const setMode = (mode: ActivityMode) => {
    const next = new URLSearchParams(params);
    next.delete("cursor"); // another view starts from its newest
    if (mode === "live") next.delete("mode");
    else next.set("mode", mode);
    setParams(next);
  };
  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    if (filters.mode === "test") next.set("mode", "test");
    for (const k of FILTERS) {
      const raw = String(data.get(k) ?? "").trim();
      const v = k === "since" || k === "until" ? localToIso(raw) : raw;
      if (v) next.set(k, v);
    }
    setParams(next); // a new filter starts from the newest page
  };
  const clear = () => setParams(filters.mode === "test" ? new URLSearchParams({ mode: "test" }) : {});
  const goNext = () => {
    if (!page.data?.next_cursor) return;
    const next = new URLSearchParams(params);
    next.set("cursor", page.data.next_cursor);
    setParams(next);
  };
  const goNewest = () => {
    const next = new URLSearchParams(params);
    next.delete("cursor");
    setParams(next);
  };

  return (
    <>
      <PageHeader title="Activity">
        <div
          role="group"
          aria-label="Live or test emails"
          className="inline-flex rounded-md border border-slate-300 bg-white p-0.5"
        >
          {(["live", "test"] as const).map((mode) => (
            <button
              key={mode}
              type="button"
              aria-pressed={filters.mode === mode}
              onClick={() => setMode(mode)}
              className={cn(
                "rounded px-3 py-1.5 text-sm text-slate-800",
                filters.mode === mode ? "bg-slate-800 font-medium text-white" : "hover:bg-slate-100",
              )}
            >
              {mode === "live" ? "Live" : "Test"}
            </button>
          ))}
        </div>
      </PageHeader>
      <p className="mb-4 max-w-2xl text-sm text-slate-700">
        {filters.mode === "live"
          ? "Every email sent with the live key or from the dashboard, newest first. Emails sent with the test key are in the Test view only."
          : "Emails sent with the test key: they go through the whole pipeline but are never delivered, and never show in the Live view."}
      </p>
      <form
        key={params.toString()}
        onSubmit={apply}
        className="mb-6 grid gap-3 rounded-lg border border-slate-200 bg-white p-4 md:grid-cols-3 lg:grid-cols-6"
      >
        <Field label="Status">
          {(p) => (
            <Select {...p} name="status" defaultValue={filters.status ?? ""}>
              {STATUS_CHOICES.some((c) => c.value === (filters.status ?? "")) ? null : (
                <option value={filters.status}>{filters.status}</option>
              )}
              {STATUS_CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Recipient" hint="the exact address">
          {(p) => <Input {...p} type="email" name="recipient" defaultValue={filters.recipient ?? ""} />}
        </Field>
        <Field label="Campaign" hint="a campaign's id">
          {(p) => <Input {...p} name="campaign_id" defaultValue={filters.campaign_id ?? ""} />}
        </Field>
        <Field label="Since">
          {(p) => (
            <Input {...p} type="datetime-local" name="since" defaultValue={isoToLocal(params.get("since"))} />
          )}
        </Field>
        <Field label="Until">
          {(p) => (
            <Input {...p} type="datetime-local" name="until" defaultValue={isoToLocal(params.get("until"))} />
          )}
        </Field>
        <div className="flex items-end gap-2">
          <Button type="submit">Filter</Button>
          <Button type="button" variant="ghost" onClick={clear}>
            Clear
          </Button>
        </div>
      </form>
      {page.isPending && <Loading what="the activity" />}
      <ErrorMessage error={page.error} title="Could not load the activity" />
      {page.data &&
        (activities.length ? (
          <DataTable
            caption={`${filters.mode === "live" ? "Live" : "Test"} emails, newest first`}
            columns={columns}
            data={activities}
          />
        ) : (
          <Empty filters={filters} filtered={filtered} projectId={projectId} />
        ))}
      <nav aria-label="Activity pages" className="mt-4 flex gap-2">
        <Button variant="outline" size="sm" onClick={goNewest} disabled={!filters.cursor}>
          Back to newest
        </Button>
        <Button variant="outline" size="sm" onClick={goNext} disabled={!page.data?.next_cursor}>
          Next (older)
        </Button>
      </nav>
    </>
  );
}

function Empty({
  filters,
  filtered,
  projectId,
}: {
  filters: ActivityFilters;
  filtered: boolean;
  projectId: string;
}) {
  if (filters.cursor)
    return (
      <EmptyState title="No older emails">This is past the last page: go back to the newest.</EmptyState>
    );
  if (filtered)
    return (
      <EmptyState title="No emails match these filters">
        Widen the filters (a longer time range, any status) or clear them.
      </EmptyState>
    );
  return filters.mode === "live" ? (
    <EmptyState title="No live emails yet">
      Send one with the live key from{" "}
      <Link className="underline" to={`/p/${projectId}/keys`}>
        API keys
      </Link>{" "}
      (<code>POST /v1/send-email</code>) and it shows here within seconds. Test sends are in the Test view.
    </EmptyState>
  ) : (
    <EmptyState title="No test emails yet">
      Send with the test key from{" "}
      <Link className="underline" to={`/p/${projectId}/keys`}>
        API keys
      </Link>
      : the email goes through the pipeline, is never delivered, and shows here.
    </EmptyState>
  );
}

/** The columns; the subject links to the detail, which can come back to this very page (`search`). */
function columnsFor(search: string): ColumnDef<Activity, unknown>[] {
  return [
    { header: "When", cell: ({ row }) => <DateTime iso={row.original.created_at} /> },
    { header: "Recipient", cell: ({ row }) => row.original.recipient },
    {
      header: "Subject",
      cell: ({ row }) => (
        <Link className="text-blue-800 underline" to={row.original.id} state={{ search }}>
          {row.original.subject || "(no subject)"}
        </Link>
      ),
    },
    { header: "Status", cell: ({ row }) => <StatusBadge status={row.original.status} /> },
    {
      header: "Type",
      cell: ({ row }) => (
        <span className="text-xs">
          {row.original.email_type}
          {row.original.source ? ` · ${row.original.source}` : ""}
        </span>
      ),
    },
    {
      header: "Campaign",
      cell: ({ row }) =>
        row.original.campaign_id ? (
          <code className="text-xs">{row.original.campaign_id.slice(0, 8)}</code>
        ) : (
          "—"
        ),
    },
  ];
}
