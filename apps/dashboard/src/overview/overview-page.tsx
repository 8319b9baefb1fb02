import { lazy, Suspense } from "react";
import { Link, useSearchParams } from "react-router";
import { useCurrentProject } from "../projects/use-project";
import { cn } from "../ui/cn";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { type Overview, type OverviewMode, type OverviewRange, useOverview } from "./use-overview";

// The chart library is the page's own chunk, loaded after the figures show.
const OverviewChart = lazy(() => import("./overview-chart"));

const RANGES: { value: OverviewRange; label: string }[] = [
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
];

const pct = (r: number | null, digits = 1) => (r === null ? "—" : `${(r * 100).toFixed(digits)}%`);
const num = (n: number) => n.toLocaleString();

function Toggle<T extends string>(props: {
  label: string;
  value: T;
  options: { value: T; label: string }[];
  onChange: (v: T) => void;
}) {
  return (
    <div
      role="group"
      aria-label={props.label}
      className="inline-flex rounded-md border border-slate-300 bg-white"
    >
      {props.options.map((o) => (
        <button
          key={o.value}
          type="button"
          aria-pressed={props.value === o.value}
          onClick={() => props.onChange(o.value)}
          className={cn(
            "px-3 py-1.5 text-sm text-slate-800 first:rounded-l-md last:rounded-r-md",
            props.value === o.value && "bg-slate-800 text-white",
          )}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

/** A rate against its line: green under it, amber past it, red past the hard line when there is one. */
function RateCard(props: {
  title: string;
  rate: number | null;
  line: number;
  hardLine?: number;
  explain: string;
}) {
  const state =
    props.rate === null
      ? "none"
      : props.hardLine !== undefined && props.rate >= props.hardLine
        ? "danger"
        : props.rate >= props.line
          ? "warn"
          : "ok";
  return (
    <section
      aria-label={props.title}
      className={cn(
        "rounded-lg border bg-white p-4",
        state === "ok" && "border-emerald-300",
        state === "warn" && "border-amber-400",
        state === "danger" && "border-red-500",
        state === "none" && "border-slate-200",
      )}
    >
      <h2 className="text-sm font-medium text-slate-700">{props.title}</h2>
      <p className="mt-1 text-2xl font-semibold text-slate-900">{pct(props.rate, 2)}</p>
      <p className="mt-1 text-xs text-slate-700">
        {state === "danger"
          ? "Past the line where mailbox providers act. "
          : state === "warn"
            ? "Above the recommended line. "
            : state === "ok"
              ? "Under the line. "
              : "Nothing to measure yet. "}
        {props.explain}
      </p>
    </section>
  );
}

function QuotaBar(props: { title: string; used: number | null; limit: number | null; note: string }) {
  const share = props.used !== null && props.limit ? Math.min(1, props.used / props.limit) : null;
  return (
    <section aria-label={props.title} className="rounded-lg border border-slate-200 bg-white p-4">
      <h2 className="text-sm font-medium text-slate-700">{props.title}</h2>
      <p className="mt-1 text-lg font-semibold text-slate-900">
        {props.used === null ? "unknown" : num(props.used)}
        {props.limit ? (
          <span className="text-sm font-normal text-slate-700"> of {num(props.limit)}</span>
        ) : null}
      </p>
      {share !== null && (
        <div
          role="meter"
          aria-label={`${props.title} used`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(share * 100)}
          className="mt-2 h-2 rounded bg-slate-200"
        >
          <div
            className={cn(
              "h-2 rounded",
              share >= 0.9 ? "bg-red-600" : share >= 0.7 ? "bg-amber-500" : "bg-emerald-600",
            )}
            style={{ width: `${share * 100}%` }}
          />
        </div>
      )}
      <p className="mt-1 text-xs text-slate-700">{props.note}</p>
    </section>
  );
}

function Figures({ data }: { data: Overview }) {
  const t = data.totals;
  const cells: [string, number, string][] = [
    ["Sent", t.sent, ""],
    ["Delivered", t.delivered, pct(data.rates.delivery_rate)],
    ["Opened", t.opened, pct(data.rates.open_rate)],
    ["Clicked", t.clicked, pct(data.rates.click_rate)],
    ["Bounced", t.bounced, pct(data.rates.bounce_rate)],
    ["Complained", t.complained, pct(data.rates.complaint_rate, 2)],
    ["Failed", t.failed, ""],
  ];
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-7">
      {cells.map(([label, n, rate]) => (
        <div key={label} className="rounded-lg border border-slate-200 bg-white p-3">
          <dt className="text-xs font-medium text-slate-700">{label}</dt>
          <dd className="text-xl font-semibold text-slate-900">
            {num(n)} {rate && <span className="text-xs font-normal text-slate-700">{rate}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The project at a glance: what was sent and what became of it, the reputation rates, and the quotas used. */
export default function OverviewPage() {
  const { projectId } = useCurrentProject();
  const [params, setParams] = useSearchParams();
  const range = (RANGES.find((r) => r.value === params.get("range"))?.value ?? "7d") as OverviewRange;
  const mode: OverviewMode = params.get("mode") === "test" ? "test" : "live";
  const overview = useOverview(projectId, range, mode);
  const set = (k: string, v: string, dflt: string) => {
    const next = new URLSearchParams(params);
    if (v === dflt) next.delete(k);
    else next.set(k, v);
    setParams(next);
  };
  const data = overview.data;

  return (
    <>
      <PageHeader title="Overview">
        <div className="flex flex-wrap gap-3">
          <Toggle
            label="Live or test sends"
            value={mode}
            options={[
              { value: "live", label: "Live" },
              { value: "test", label: "Test" },
            ]}
            onChange={(v) => set("mode", v, "live")}
          />
          <Toggle label="Range" value={range} options={RANGES} onChange={(v) => set("range", v, "7d")} />
        </div>
      </PageHeader>
      <ErrorMessage error={overview.error} title="Could not load the overview" />
      {!data ? (
        overview.isPending && <Loading what="the overview" />
      ) : (
        <div className="space-y-6">
          <Figures data={data} />
          {data.totals.sent === 0 && data.totals.failed === 0 ? (
            <EmptyState
              title={`No ${mode} emails in the last ${RANGES.find((r) => r.value === range)?.label}`}
            >
              Send one with your {mode} key (see{" "}
              <Link to="../keys" className="underline">
                API keys
              </Link>
              ), or pick a longer range.
            </EmptyState>
          ) : (
            <section className="rounded-lg border border-slate-200 bg-white p-4">
              <h2 className="mb-2 text-sm font-medium text-slate-700">
                Per {data.bucket} ({data.time_zone})
              </h2>
              <Suspense fallback={<Loading what="the chart" />}>
                <OverviewChart data={data} />
              </Suspense>
            </section>
          )}
          <div className="grid gap-3 md:grid-cols-2">
            <RateCard
              title="Bounce rate"
              rate={data.rates.bounce_rate}
              line={data.rate_lines.bounce_rate}
              explain={`Bulk senders keep bounces under ${pct(data.rate_lines.bounce_rate, 0)} of sent.`}
            />
            <RateCard
              title="Complaint rate"
              rate={data.rates.complaint_rate}
              line={data.rate_lines.complaint_rate}
              hardLine={data.rate_lines.complaint_rate_max}
              explain={`Gmail and Yahoo ask for under ${pct(data.rate_lines.complaint_rate, 1)} of delivered, never ${pct(data.rate_lines.complaint_rate_max, 1)}.`}
            />
          </div>
          <div className="grid gap-3 md:grid-cols-3">
            <QuotaBar
              title="Today (UTC)"
              used={data.quota.today.charged}
              limit={data.quota.today.daily_cap}
              note="Emails accepted today, test sends included, against the project's daily cap."
            />
            <QuotaBar
              title={`This month (${data.quota.month.period})`}
              used={data.quota.month.live_sent}
              limit={data.quota.month.limit}
              note="Live emails against the monthly quota."
            />
            <QuotaBar
              title="Provider, last 24 hours"
              used={data.quota.provider?.sent_last_24_hours ?? null}
              limit={data.quota.provider?.max_24_hour_send ?? null}
              note={
                data.quota.provider
                  ? `The provider account's quota, shared by every project (${data.quota.provider.max_send_rate}/s).`
                  : "The provider did not answer; its quota is unknown for now."
              }
            />
          </div>
        </div>
      )}
    </>
  );
}
