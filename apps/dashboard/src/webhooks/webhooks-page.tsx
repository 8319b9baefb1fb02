import type { ColumnDef } from "@tanstack/react-table";
import { type FormEvent, useMemo } from "react";
import { Link, useSearchParams } from "react-router";
import { useCurrentProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { cn } from "../ui/cn";
import { DateTime } from "../ui/datetime";
import { Field, Input, Select } from "../ui/input";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { DeliveryStatus } from "./delivery-status";
import { Receivers } from "./receivers";
import { type Delivery, DELIVERY_STATUSES, type DeliveryFilters, useDeliveries } from "./use-webhooks";

const FILTERS = ["status", "event"] as const;

const STATUS_CHOICES: { value: string; label: string }[] = [
  { value: "", label: "Any status" },
  { value: "failed,exhausted", label: "Problems (failed, exhausted)" },
  ...DELIVERY_STATUSES.map((s) => ({ value: s, label: s })),
];

/** The URL's filters (what a reload or a shared link keeps). */
function filtersOf(params: URLSearchParams): DeliveryFilters {
  const filters: DeliveryFilters = { mode: params.get("mode") === "test" ? "test" : "live" };
  for (const k of [...FILTERS, "cursor"] as const) {
    const v = params.get(k);
    if (v) filters[k] = v;
  }
  return filters;
}

export default function WebhooksPage() {
  const { projectId } = useCurrentProject();
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const page = useDeliveries(projectId, filters);
  const deliveries = useMemo(() => page.data?.deliveries ?? [], [page.data]);
  const filtered = FILTERS.some((k) => filters[k]);
  const columns = useMemo(() => columnsFor(params.toString()), [params]);

  const setMode = (mode: DeliveryFilters["mode"]) => {
    const next = new URLSearchParams(params);
    next.delete("cursor");
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
      const v = String(data.get(k) ?? "").trim();
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
      <PageHeader title="Webhooks">
        <div
          role="group"
          aria-label="Live or test deliveries"
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
      <p className="mb-6 max-w-2xl text-sm text-slate-700">
        Every email event and inbound reply is delivered to your receiver as a signed POST, tried up to 5
        times (by default over about 8 minutes). Open a delivery to see each attempt and what the receiver
        answered, and send it again.
      </p>
      <Receivers projectId={projectId} />
      <h2 className="mb-3 text-lg font-semibold text-slate-900">Deliveries</h2>
      <form
        key={params.toString()}
        onSubmit={apply}
        className="mb-6 grid gap-3 rounded-lg border border-slate-200 bg-white p-4 md:grid-cols-3"
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
        <Field label="Event" hint="e.g. email.bounced">
          {(p) => <Input {...p} name="event" defaultValue={filters.event ?? ""} />}
        </Field>
        <div className="flex items-end gap-2">
          <Button type="submit">Filter</Button>
          <Button type="button" variant="ghost" onClick={clear}>
            Clear
          </Button>
        </div>
      </form>
      {page.isPending && <Loading what="the deliveries" />}
      <ErrorMessage error={page.error} title="Could not load the deliveries" />
      {page.data &&
        (deliveries.length ? (
          <DataTable
            caption={`${filters.mode === "live" ? "Live" : "Test"} webhook deliveries, newest first`}
            columns={columns}
            data={deliveries}
          />
        ) : filters.cursor ? (
          <EmptyState title="No older deliveries">
            This is past the last page: go back to the newest.
          </EmptyState>
        ) : filtered ? (
          <EmptyState title="No deliveries match these filters">
            Pick another status or event, or clear the filters.
          </EmptyState>
        ) : (
          <EmptyState title={`No ${filters.mode} deliveries yet`}>
            Set the {filters.mode === "live" ? <code>webhook_url</code> : <code>webhook_url_dev</code>} in{" "}
            <Link className="underline" to={`/p/${projectId}/settings`}>
              Settings
            </Link>
            , then send an email with the {filters.mode} key: its events (sent, delivered, opened…) are
            delivered there and show here.
          </EmptyState>
        ))}
      <nav aria-label="Delivery pages" className="mt-4 flex gap-2">
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

/** The columns; the event links to the delivery, which can come back to this very page (`search`). */
function columnsFor(search: string): ColumnDef<Delivery, unknown>[] {
  return [
    { header: "When", cell: ({ row }) => <DateTime iso={row.original.created_at} /> },
    {
      header: "Event",
      cell: ({ row }) => (
        <Link className="text-blue-800 underline" to={row.original.id} state={{ search }}>
          {row.original.event}
        </Link>
      ),
    },
    { header: "Status", cell: ({ row }) => <DeliveryStatus status={row.original.status} /> },
    { header: "Attempts", cell: ({ row }) => row.original.attempts },
    { header: "Last answer", cell: ({ row }) => row.original.last_status_code ?? "—" },
    {
      header: "URL",
      cell: ({ row }) => <span className="text-xs break-all">{row.original.url ?? "—"}</span>,
    },
  ];
}
