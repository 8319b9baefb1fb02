import type { ReactNode } from "react";
import type { ColumnDef } from "@tanstack/react-table";
import { Link, useLocation, useParams } from "react-router";
import { canEdit } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { DateTime } from "../ui/datetime";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { DeliveryStatus } from "./delivery-status";
import { type Attempt, FINISHED, useDelivery, useRedeliverDelivery } from "./use-webhooks";

const attemptColumns: ColumnDef<Attempt, unknown>[] = [
  { header: "#", cell: ({ row }) => row.original.attempt },
  { header: "When", cell: ({ row }) => <DateTime iso={row.original.created_at} /> },
  { header: "Status", cell: ({ row }) => row.original.status_code ?? "no answer" },
  { header: "Duration", cell: ({ row }) => `${row.original.duration_ms} ms` },
  { header: "Error", cell: ({ row }) => row.original.error ?? "—" },
  {
    header: "Response (first 500 characters)",
    cell: ({ row }) =>
      row.original.response_excerpt ? (
        <pre className="max-w-md overflow-x-auto text-xs whitespace-pre-wrap">
          {row.original.response_excerpt}
        </pre>
      ) : (
        "—"
      ),
  },
];

/** One delivery: what it sends, where, each attempt and the receiver's answer, and Redeliver. */
export default function DeliveryPage() {
  const { projectId, membership } = useCurrentProject();
  const { deliveryId = "" } = useParams();
  const location = useLocation();
  const search = typeof location.state?.search === "string" ? location.state.search : "";
  const detail = useDelivery(projectId, deliveryId);
  const redeliver = useRedeliverDelivery(projectId);
  const mayRedeliver = canEdit(membership?.role);
  const d = detail.data?.delivery;
  const finished = d ? FINISHED.has(d.status) : false;

  return (
    <>
      <p className="mb-2 text-sm">
        <Link className="text-blue-800 underline" to={`..${search ? `?${search}` : ""}`} relative="path">
          Back to the webhooks
        </Link>
      </p>
      {detail.isPending && <Loading what="the delivery" />}
      <ErrorMessage error={detail.error} title="Could not load this delivery" />
      {d && detail.data && (
        <>
          <PageHeader title={`Delivery: ${d.event}`}>
            <div className="flex flex-col items-end gap-1">
              <Button
                onClick={() => redeliver.mutate(d.id)}
                disabled={!mayRedeliver || !finished || redeliver.isPending}
                aria-describedby="redeliver-why"
              >
                Redeliver
              </Button>
              <p id="redeliver-why" className="max-w-xs text-right text-xs text-slate-600">
                {!mayRedeliver
                  ? "Viewers cannot redeliver: ask an owner, admin or member of this project."
                  : !finished
                    ? "It is still being delivered; it can be sent again once it has succeeded or given up."
                    : "Sends the same body again, signed anew, with a fresh set of attempts."}
              </p>
            </div>
          </PageHeader>
          {redeliver.isSuccess && (
            <p role="status" className="mb-4 text-sm text-green-800">
              Sent again: the delivery is pending and goes out within seconds.
            </p>
          )}
          <ErrorMessage error={redeliver.error} title="Could not redeliver" />
          <dl className="mb-6 grid gap-x-6 gap-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm md:grid-cols-2">
            <Fact label="Status">
              <span data-testid="delivery-status">
                <DeliveryStatus status={d.status} />
              </span>
            </Fact>
            <Fact label="Mode">{d.is_test ? "test" : "live"}</Fact>
            <Fact label="URL">
              <span className="break-all">{d.url ?? "none (no URL for this mode)"}</span>
            </Fact>
            <Fact label="Attempts">{d.attempts}</Fact>
            <Fact label="Created">
              <DateTime iso={d.created_at} />
            </Fact>
            <Fact label="Next attempt">{d.next_attempt_at ? <DateTime iso={d.next_attempt_at} /> : "—"}</Fact>
          </dl>
          <h2 className="mb-3 text-lg font-semibold text-slate-900">Attempts</h2>
          {detail.data.attempts.length ? (
            <DataTable
              caption="Attempts, oldest first"
              columns={attemptColumns}
              data={detail.data.attempts}
            />
          ) : (
            <EmptyState title="No attempt yet">
              {d.status === "skipped"
                ? "The project had no URL for this mode when the event happened: set one in Settings, then redeliver."
                : "The webhook-dispatcher makes the first attempt within seconds; reload to see it."}
            </EmptyState>
          )}
          <details className="mt-6 rounded-lg border border-slate-200 bg-white p-4">
            <summary className="cursor-pointer text-sm font-medium text-slate-900">Body sent</summary>
            <pre className="mt-3 overflow-x-auto text-xs whitespace-pre-wrap">{pretty(d.body)}</pre>
          </details>
        </>
      )}
    </>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex gap-2">
      <dt className="w-28 shrink-0 text-slate-600">{label}</dt>
      <dd className="text-slate-900">{children}</dd>
    </div>
  );
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
