import type { ColumnDef } from "@tanstack/react-table";
import { type ReactNode, useMemo } from "react";
import { Link, useLocation, useParams } from "react-router";
import type { ActivityDetail } from "../api/types";
import { useSession } from "../auth/use-session";
import { useCurrentProject } from "../projects/use-project";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { DateTime } from "../ui/datetime";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { EmailFrame } from "./email-frame";
import { StatusBadge } from "./status-badge";
import { useActivity, useRedeliver } from "./use-activities";

type Delivery = ActivityDetail["webhook_deliveries"][number];

/** A few words about an event's payload: what an operator looks for first (the rest is one click away). */
function summary(payload: unknown): string | null {
  if (!payload || typeof payload !== "object") return null;
  const p = payload as Record<string, unknown>;
  for (const k of ["reason", "bounce_type", "diagnostic", "url", "error", "message"]) {
    const v = p[k];
    if (typeof v === "string" && v) return `${k.replace(/_/g, " ")}: ${v}`;
  }
  return null;
}

export default function ActivityDetailPage() {
  const { projectId } = useCurrentProject();
  const { activityId = "" } = useParams();
  const location = useLocation();
  const back = `..${typeof location.state?.search === "string" && location.state.search ? `?${location.state.search}` : ""}`;
  const detail = useActivity(projectId, activityId);
  const session = useSession();
  const mayRedeliver = session.data?.user.platform_owner === true;
  const redeliver = useRedeliver(projectId, activityId);

  const deliveryColumns = useMemo<ColumnDef<Delivery, unknown>[]>(
    () => [
      { header: "Created", cell: ({ row }) => <DateTime iso={row.original.created_at} /> },
      { header: "Event", cell: ({ row }) => <code>{row.original.event}</code> },
      {
        header: "Status",
        cell: ({ row }) => (
          <Badge
            tone={
              row.original.status === "delivered"
                ? "green"
                : row.original.status === "failed" || row.original.status === "dead"
                  ? "red"
                  : "amber"
            }
          >
            {row.original.status}
          </Badge>
        ),
      },
      { header: "Attempts", cell: ({ row }) => row.original.attempts },
      { header: "Last answer", cell: ({ row }) => row.original.last_status_code ?? "—" },
      {
        header: "URL",
        cell: ({ row }) => <span className="text-xs break-all">{row.original.url ?? "—"}</span>,
      },
      {
        header: "Redeliver",
        cell: ({ row }) => (
          <Button
            size="sm"
            variant="outline"
            disabled={!mayRedeliver || redeliver.isPending}
            title={mayRedeliver ? undefined : "Only a platform owner may redeliver"}
            onClick={() => redeliver.mutate(row.original.id)}
            aria-label={`Redeliver the ${row.original.event} webhook`}
          >
            Redeliver
          </Button>
        ),
      },
    ],
    [mayRedeliver, redeliver],
  );

  return (
    <>
      <p className="mb-2 text-sm">
        <Link className="text-blue-800 underline" to={back} relative="path">
          Back to the activity
        </Link>
      </p>
      {detail.isPending && <Loading what="the email" />}
      <ErrorMessage error={detail.error} title="Could not load this email" />
      {detail.data && (
        <Detail data={detail.data}>
          <section aria-labelledby="webhooks-heading" className="space-y-3">
            <h2 id="webhooks-heading" className="text-lg font-semibold text-slate-900">
              Webhook deliveries
            </h2>
            <ErrorMessage error={redeliver.error} title="Redelivery refused" />
            {redeliver.isSuccess && (
              <p role="status" className="text-sm text-green-900">
                Queued for delivery again.
              </p>
            )}
            {detail.data.webhook_deliveries.length ? (
              <>
                <DataTable
                  caption="Webhook deliveries about this email"
                  columns={deliveryColumns}
                  data={detail.data.webhook_deliveries}
                />
                {!mayRedeliver && (
                  <p className="text-xs text-slate-600">Only a platform owner may redeliver a webhook.</p>
                )}
              </>
            ) : (
              <EmptyState title="No webhook deliveries">
                Set a webhook URL in{" "}
                <Link className="underline" to={`/p/${projectId}/settings`}>
                  Settings
                </Link>{" "}
                ({detail.data.activity.is_test ? "the _dev URL for test sends" : "the live URL"}) to be told
                of this email's events.
              </EmptyState>
            )}
          </section>
        </Detail>
      )}
    </>
  );
}

function Detail({ data, children }: { data: ActivityDetail; children: ReactNode }) {
  const a = data.activity;
  // the send was accepted at created_at; the events recorded since follow it
  const timeline = [
    { type: "accepted", occurred_at: a.created_at, payload: null as unknown },
    ...data.events,
  ];
  const facts: [string, ReactNode][] = [
    ["To", a.recipient],
    ["From", a.from],
    ["Status", <StatusBadge key="s" status={a.status} />],
    [
      "Mode",
      <Badge key="m" tone={a.is_test ? "amber" : "blue"}>
        {a.is_test ? "test" : "live"}
      </Badge>,
    ],
    ["Type", `${a.email_type}${a.source ? ` · ${a.source}` : ""}`],
    [
      "Email id",
      <code key="e" className="text-xs">
        {a.email_id}
      </code>,
    ],
    [
      "Provider message id",
      a.provider_message_id ? <code className="text-xs">{a.provider_message_id}</code> : "—",
    ],
    ["Campaign", a.campaign_id ? <code className="text-xs">{a.campaign_id}</code> : "—"],
  ];
  return (
    <div className="space-y-8">
      <PageHeader title={`Email: ${a.subject || "(no subject)"}`} />
      {a.failure_reason && (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          <strong>Failed: </strong>
          {a.failure_reason}
        </p>
      )}
      <dl className="grid gap-x-6 gap-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm md:grid-cols-[max-content_1fr]">
        {facts.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="font-medium text-slate-700">{k}</dt>
            <dd className="text-slate-900 break-all">{v}</dd>
          </div>
        ))}
      </dl>

      <section aria-labelledby="timeline-heading" className="space-y-3">
        <h2 id="timeline-heading" className="text-lg font-semibold text-slate-900">
          Timeline
        </h2>
        <ol aria-label="Event timeline" className="relative space-y-3 border-l-2 border-slate-200 pl-4">
          {timeline.map((e, i) => {
            const said = summary(e.payload);
            return (
              <li key={`${e.type}-${e.occurred_at}-${i}`} className="text-sm">
                <span className="font-medium text-slate-900">{e.type}</span>{" "}
                <span className="text-slate-700">
                  <DateTime iso={e.occurred_at} />
                </span>
                {said && <p className="text-slate-700">{said}</p>}
                {e.payload != null && (
                  <details className="mt-1">
                    <summary className="cursor-pointer text-xs text-slate-700">Details</summary>
                    <pre className="mt-1 overflow-x-auto rounded bg-slate-100 p-2 text-xs text-slate-900">
                      {JSON.stringify(e.payload, null, 2)}
                    </pre>
                  </details>
                )}
              </li>
            );
          })}
        </ol>
        {data.events.length === 0 && (
          <p className="text-sm text-slate-700">
            No events yet: sent, delivered, opened, clicked, bounced or complained show here as they happen
            (the send-worker records &ldquo;sent&rdquo; once it has handed the email over).
          </p>
        )}
      </section>

      <section aria-labelledby="content-heading" className="space-y-3">
        <h2 id="content-heading" className="text-lg font-semibold text-slate-900">
          The email as sent
        </h2>
        <EmailFrame html={a.html} title="The email as sent" />
        {a.data != null && (
          <details>
            <summary className="cursor-pointer text-sm text-slate-700">
              Per-recipient variables (applied by the send-worker)
            </summary>
            <pre className="mt-1 overflow-x-auto rounded bg-slate-100 p-2 text-xs text-slate-900">
              {JSON.stringify(a.data, null, 2)}
            </pre>
          </details>
        )}
        {a.text && (
          <details>
            <summary className="cursor-pointer text-sm text-slate-700">Plain-text part</summary>
            <pre className="mt-1 rounded bg-slate-100 p-2 text-xs whitespace-pre-wrap text-slate-900">
              {a.text}
            </pre>
          </details>
        )}
      </section>
      {children}
    </div>
  );
}
