import { useState } from "react";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { CopyButton } from "../ui/copy-button";
import { DateTime } from "../ui/datetime";
import { Dialog, DialogClose } from "../ui/dialog";
import { ErrorMessage, Loading } from "../ui/states";
import {
  type DnsRecord,
  type DomainSummary,
  useDeleteDomain,
  useDnsRecords,
  useVerifyDomain,
} from "./use-domains";

const PURPOSE: Record<DnsRecord["purpose"], string> = {
  ses_verification: "Domain ownership",
  dkim: "DKIM signature",
  spf: "SPF",
  dmarc: "DMARC policy",
  return_path: "MAIL FROM (bounces)",
};

const STATUS_TONE: Record<string, "green" | "amber" | "red" | "neutral"> = {
  verified: "green",
  partially_verified: "amber",
  pending: "neutral",
  failed: "red",
};

/** What the last verification found for one record, in words. */
function RecordState({ verified }: { verified: boolean | null }) {
  if (verified === true) return <Badge tone="green">Verified</Badge>;
  if (verified === false) return <Badge tone="red">Not found</Badge>;
  return <Badge tone="neutral">Pending</Badge>;
}

/** One domain: its state, its 7 records with copy buttons, verify and remove. */
export function DomainCard({
  projectId,
  summary,
  mayEdit,
}: {
  projectId: string;
  summary: DomainSummary;
  mayEdit: boolean;
}) {
  const { domain } = summary;
  const records = useDnsRecords(projectId, domain);
  const verify = useVerifyDomain(projectId);
  const remove = useDeleteDomain(projectId);
  const [confirming, setConfirming] = useState(false);
  const headingId = `domain-${domain.replace(/[^a-z0-9]/gi, "-")}`;

  const runVerify = () => verify.mutate(domain, { onSettled: () => void records.refetch() });

  return (
    <article
      aria-labelledby={headingId}
      data-testid={`domain-${domain}`}
      className="rounded-lg border border-slate-200 bg-white p-4"
    >
      <div className="mb-3 flex flex-wrap items-center gap-3">
        <h3 id={headingId} className="text-base font-semibold text-slate-900">
          {domain}
        </h3>
        <Badge tone={STATUS_TONE[summary.status] ?? "neutral"} data-testid="domain-status">
          {summary.status.replace("_", " ")}
        </Badge>
        <span className="text-sm text-slate-700">
          {summary.can_send ? "Can send" : "Cannot send yet"} · {summary.dns_records_summary.verified} of{" "}
          {summary.dns_records_summary.total} records verified
          {summary.last_verified_at ? (
            <>
              {" "}
              · last checked <DateTime iso={summary.last_verified_at} />
            </>
          ) : (
            " · not checked yet"
          )}
        </span>
        {mayEdit && (
          <div className="ml-auto flex gap-2">
            <Button size="sm" onClick={runVerify} disabled={verify.isPending} aria-label={`Verify ${domain}`}>
              Verify
            </Button>
            <Button
              size="sm"
              variant="outline"
              onClick={() => setConfirming(true)}
              aria-label={`Remove ${domain}`}
            >
              Remove
            </Button>
          </div>
        )}
      </div>
      {summary.sender && (
        <p className="mb-3 text-sm text-slate-700">
          Sends as {summary.sender.sender_name ? `${summary.sender.sender_name} ` : ""}
          &lt;{summary.sender.sender_email}&gt;
        </p>
      )}
      {verify.isSuccess && (
        <p role="status" className="mb-3 text-sm text-slate-800">
          {verify.data.message}
        </p>
      )}
      <ErrorMessage error={verify.error} title="Could not verify the domain" />
      <ErrorMessage error={remove.error} title="Could not remove the domain" />
      {records.isPending && <Loading what="the DNS records" />}
      <ErrorMessage error={records.error} title="Could not load the DNS records" />
      {records.data && (
        <p className="mb-2 text-xs text-slate-600">
          Names are relative to {domain} (@ is {domain} itself): most DNS providers add the domain for you.
        </p>
      )}
      {records.data && (
        <div className="overflow-x-auto rounded-md border border-slate-200">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">
              The DNS records of {domain}: names are relative to {domain}
            </caption>
            <thead className="bg-slate-50 text-slate-700">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  Record
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Type
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Name
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Value
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  State
                </th>
              </tr>
            </thead>
            <tbody>
              {records.data.dns_records.map((r, i) => {
                const what = `${PURPOSE[r.purpose] ?? r.purpose}${r.purpose === "dkim" ? ` ${records.data.dns_records.slice(0, i + 1).filter((x) => x.purpose === "dkim").length}` : ""}`;
                return (
                  <tr
                    key={`${r.type}-${r.name}`}
                    className="border-t border-slate-200 align-top"
                    data-testid="dns-record"
                  >
                    <td className="px-3 py-2 text-slate-900">{what}</td>
                    <td className="px-3 py-2 font-mono">{r.type}</td>
                    <td className="px-3 py-2">
                      <div className="flex items-start gap-2">
                        <code className="break-all">{r.name}</code>
                        <CopyButton value={r.name} what={`the name of ${what}`} />
                      </div>
                    </td>
                    <td className="px-3 py-2">
                      <div className="flex items-start gap-2">
                        <code className="break-all" data-testid="dns-record-value">
                          {r.value}
                        </code>
                        <CopyButton value={r.value} what={`the value of ${what}`} />
                      </div>
                    </td>
                    <td className="px-3 py-2">
                      <RecordState verified={r.verified} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <Dialog
        open={confirming}
        onOpenChange={setConfirming}
        title={`Remove ${domain}?`}
        description={
          <>
            The domain is removed from the email provider and its senders <strong>can no longer send</strong>.
            Register it again to reuse it: its DNS records will change.
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
            onClick={() => remove.mutate(domain, { onSettled: () => setConfirming(false) })}
          >
            Remove domain
          </Button>
        </div>
      </Dialog>
    </article>
  );
}
