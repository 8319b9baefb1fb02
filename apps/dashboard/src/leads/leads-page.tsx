import type { ColumnDef } from "@tanstack/react-table";
import { type FormEvent, useMemo } from "react";
import { Link, useSearchParams } from "react-router";
import { useCurrentProject } from "../projects/use-project";
import { useSegments } from "../segments/use-segments";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { DateTime } from "../ui/datetime";
import { Field, Input, Select } from "../ui/input";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { type Lead, type LeadFilters, SUBSCRIPTIONS, useLeads } from "./use-leads";

const FILTERS = [
  "email",
  "tag",
  "segment",
  "subscription",
  "attr",
  "created_since",
  "created_until",
] as const;

export const SUBSCRIPTION_TONE: Record<string, "green" | "amber" | "neutral"> = {
  subscribed: "green",
  unsubscribed: "amber",
  unknown: "neutral",
};

function filtersOf(params: URLSearchParams): LeadFilters {
  const f: LeadFilters = {};
  for (const k of [...FILTERS, "page"] as const) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f;
}

export default function LeadsPage() {
  const { projectId } = useCurrentProject();
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const page = useLeads(projectId, filters);
  const segments = useSegments(projectId);
  const rows = useMemo(() => page.data?.data ?? [], [page.data]);
  const columns = useMemo<ColumnDef<Lead, unknown>[]>(
    () => [
      {
        header: "Email",
        cell: ({ row }) => (
          <Link className="text-blue-800 underline" to={row.original.id}>
            {row.original.email}
          </Link>
        ),
      },
      {
        header: "Name",
        cell: ({ row }) => [row.original.first_name, row.original.last_name].filter(Boolean).join(" ") || "—",
      },
      {
        header: "Consent",
        cell: ({ row }) => (
          <Badge tone={SUBSCRIPTION_TONE[row.original.subscription] ?? "neutral"}>
            {row.original.subscription}
          </Badge>
        ),
      },
      { header: "Tags", cell: ({ row }) => row.original.tags.join(", ") || "—" },
      { header: "Created", cell: ({ row }) => <DateTime iso={row.original.created_at} /> },
    ],
    [],
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
  const current = Number(filters.page ?? "1");
  const go = (n: number) => {
    const next = new URLSearchParams(params);
    if (n <= 1) next.delete("page");
    else next.set("page", String(n));
    setParams(next);
  };
  const p = page.data?.pagination;
  const filtered = FILTERS.some((k) => filters[k]);

  return (
    <>
      <PageHeader title="Leads" />
      <form
        key={params.toString()}
        onSubmit={apply}
        role="search"
        className="mb-6 grid gap-3 rounded-lg border border-slate-200 bg-white p-4 md:grid-cols-4"
      >
        <Field label="Email">
          {(p) => <Input {...p} name="email" type="email" defaultValue={filters.email ?? ""} />}
        </Field>
        <Field label="Tag">{(p) => <Input {...p} name="tag" defaultValue={filters.tag ?? ""} />}</Field>
        <Field label="Segment">
          {(p) => (
            <Select {...p} name="segment" defaultValue={filters.segment ?? ""}>
              <option value="">Any segment</option>
              {(segments.data?.segments ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Consent">
          {(p) => (
            <Select {...p} name="subscription" defaultValue={filters.subscription ?? ""}>
              <option value="">Any</option>
              {SUBSCRIPTIONS.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Attribute" hint="name=value, e.g. plan=pro">
          {(p) => <Input {...p} name="attr" defaultValue={filters.attr ?? ""} pattern="[^=]+=.*" />}
        </Field>
        <Field label="Created from">
          {(p) => (
            <Input {...p} name="created_since" type="date" defaultValue={filters.created_since ?? ""} />
          )}
        </Field>
        <Field label="Created until">
          {(p) => (
            <Input {...p} name="created_until" type="date" defaultValue={filters.created_until ?? ""} />
          )}
        </Field>
        <div className="flex items-end gap-2">
          <Button type="submit">Filter</Button>
          <Button type="button" variant="ghost" onClick={() => setParams({})}>
            Clear
          </Button>
        </div>
      </form>
      {page.isPending && <Loading what="the leads" />}
      <ErrorMessage error={page.error} title="Could not load the leads" />
      {p && page.data && (
        <p className="mb-3 text-sm text-slate-700" role="status">
          {page.data.total_exact ? "" : "about "}
          {p.total.toLocaleString("en-US")} {p.total === 1 ? "lead" : "leads"}
          {filtered ? " match" : ""}
          {p.total_pages > 1
            ? `, page ${p.page} of ${page.data.total_exact ? "" : "about "}${p.total_pages}`
            : ""}
        </p>
      )}
      {page.data &&
        (rows.length ? (
          <DataTable caption="Leads, newest first" columns={columns} data={rows} />
        ) : filtered ? (
          <EmptyState title="No lead matches">Change or clear the filters to see more leads.</EmptyState>
        ) : (
          <EmptyState title="No leads yet">
            Leads arrive through the API (POST /v1/leads), events, imports and shop orders.
          </EmptyState>
        ))}
      <nav aria-label="Lead pages" className="mt-4 flex gap-2">
        <Button variant="outline" size="sm" onClick={() => go(current - 1)} disabled={current <= 1}>
          Previous
        </Button>
        <Button
          variant="outline"
          size="sm"
          onClick={() => go(current + 1)}
          disabled={!p || p.page >= p.total_pages}
        >
          Next
        </Button>
      </nav>
    </>
  );
}
