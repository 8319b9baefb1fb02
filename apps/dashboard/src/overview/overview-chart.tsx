import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Counts, Overview } from "./use-overview";

/** The series drawn, each in a colour that keeps 3:1 contrast on white. */
export const SERIES: { key: keyof Counts; label: string; color: string }[] = [
  { key: "sent", label: "Sent", color: "#1d4ed8" },
  { key: "delivered", label: "Delivered", color: "#047857" },
  { key: "opened", label: "Opened", color: "#7c3aed" },
  { key: "clicked", label: "Clicked", color: "#0e7490" },
  { key: "bounced", label: "Bounced", color: "#b45309" },
  { key: "complained", label: "Complained", color: "#be123c" },
  { key: "failed", label: "Failed", color: "#475569" },
];

function bucketLabel(at: string, bucket: Overview["bucket"], timeZone: string): string {
  const d = new Date(at);
  return bucket === "hour"
    ? d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", timeZone })
    : d.toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone });
}

/** The range's counts over time: a line per state, per hour (24 h) or per day in the project's time zone. */
export default function OverviewChart({ data }: { data: Overview }) {
  const rows = data.series.map((b) => ({ ...b, label: bucketLabel(b.at, data.bucket, data.time_zone) }));
  return (
    <figure aria-label={`Emails per ${data.bucket}, ${data.range}`}>
      <div className="h-72 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
            <XAxis dataKey="label" tick={{ fontSize: 12, fill: "#334155" }} minTickGap={16} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12, fill: "#334155" }} width={48} />
            <Tooltip />
            <Legend />
            {SERIES.map((s) => (
              <Line
                key={s.key}
                type="linear"
                dataKey={s.key}
                name={s.label}
                stroke={s.color}
                strokeWidth={2}
                dot={false}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="sr-only">
        {SERIES.map((s) => `${s.label}: ${data.totals[s.key]}`).join(", ")}
      </figcaption>
    </figure>
  );
}
