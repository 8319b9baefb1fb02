import { type FormEvent, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { StatusBadge } from "../activity/status-badge";
import { canEdit } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { DateTime } from "../ui/datetime";
import { Dialog, DialogClose } from "../ui/dialog";
import { Field, Input, Textarea } from "../ui/input";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { SUBSCRIPTION_TONE } from "./leads-page";
import {
  type LeadWithSegments,
  type TimelineItem,
  useDeleteLead,
  useLead,
  useLeadTimeline,
  useTagLead,
  useUpdateLead,
} from "./use-leads";

const section = "rounded-lg border border-slate-200 bg-white p-4";

export default function LeadPage() {
  const { projectId, membership } = useCurrentProject();
  const { leadId = "" } = useParams();
  const mayEdit = canEdit(membership?.role);
  const lead = useLead(projectId, leadId);
  const del = useDeleteLead(projectId, leadId);
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);

  if (lead.isPending) return <Loading what="the lead" />;
  if (lead.error) return <ErrorMessage error={lead.error} title="Could not load the lead" />;
  const l = lead.data.lead;
  const name = [l.first_name, l.last_name].filter(Boolean).join(" ");

  return (
    <>
      <PageHeader title={l.email}>
        <div className="flex gap-2">
          <Button asChild variant="outline">
            <Link to=".." relative="path">
              All leads
            </Link>
          </Button>
          <Button variant="outline" disabled={!mayEdit} onClick={() => setEditing(true)}>
            Edit
          </Button>
          <Button variant="destructive" disabled={!mayEdit} onClick={() => setDeleting(true)}>
            Delete
          </Button>
        </div>
      </PageHeader>
      <div className="grid gap-4 lg:grid-cols-3">
        <section aria-labelledby="lead-profile" className={section}>
          <h2 id="lead-profile" className="mb-3 text-lg font-semibold">
            Profile
          </h2>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-slate-600">Name</dt>
            <dd>{name || "—"}</dd>
            <dt className="text-slate-600">Phone</dt>
            <dd>{l.phone ?? "—"}</dd>
            <dt className="text-slate-600">Came from</dt>
            <dd>{l.source}</dd>
            <dt className="text-slate-600">Created</dt>
            <dd>
              <DateTime iso={l.created_at} />
            </dd>
          </dl>
        </section>
        <section aria-labelledby="lead-consent" className={section}>
          <h2 id="lead-consent" className="mb-3 text-lg font-semibold">
            Consent
          </h2>
          <p className="text-sm">
            <Badge tone={SUBSCRIPTION_TONE[l.subscription] ?? "neutral"}>{l.subscription}</Badge>
          </p>
          <p className="mt-2 text-sm text-slate-700">
            {l.subscription_changed_at ? (
              <>
                Changed <DateTime iso={l.subscription_changed_at} />
                {l.subscription_source ? ` by ${l.subscription_source}` : ""}.
              </>
            ) : l.subscription === "unknown" ? (
              "Never asked: marketing email is not sent to this lead."
            ) : (
              "Set when the lead was created."
            )}
          </p>
        </section>
        <section aria-labelledby="lead-segments" className={section}>
          <h2 id="lead-segments" className="mb-3 text-lg font-semibold">
            Segments
          </h2>
          {l.segments.length ? (
            <ul className="space-y-1 text-sm">
              {l.segments.map((s) => (
                <li key={s.id}>
                  <Link className="text-blue-800 underline" to={`..?segment=${s.id}`} relative="path">
                    {s.name}
                  </Link>{" "}
                  <span className="text-slate-600">({s.type})</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-700">In no segment.</p>
          )}
        </section>
        <Tags projectId={projectId} lead={l} mayEdit={mayEdit} />
        <section aria-labelledby="lead-attributes" className={`${section} lg:col-span-2`}>
          <h2 id="lead-attributes" className="mb-3 text-lg font-semibold">
            Attributes
          </h2>
          {Object.keys(l.attributes).length ? (
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              {Object.entries(l.attributes).map(([k, v]) => (
                <div key={k} className="contents">
                  <dt className="font-mono text-slate-600">{k}</dt>
                  <dd className="font-mono">{JSON.stringify(v)}</dd>
                </div>
              ))}
            </dl>
          ) : (
            <p className="text-sm text-slate-700">No attributes.</p>
          )}
        </section>
      </div>
      <Timeline projectId={projectId} leadId={leadId} />
      <EditDialog projectId={projectId} lead={l} open={editing} onClose={() => setEditing(false)} />
      <Dialog
        open={deleting}
        onOpenChange={setDeleting}
        title={`Delete ${l.email}?`}
        description="The lead, its attributes, tags, events and segment memberships are removed for good. Its sending log and any suppression of the address stay."
      >
        <ErrorMessage error={del.error} title="Could not delete the lead" />
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button
            variant="destructive"
            disabled={del.isPending}
            onClick={() => del.mutate(undefined, { onSuccess: () => navigate("..", { relative: "path" }) })}
          >
            Delete the lead
          </Button>
        </div>
      </Dialog>
    </>
  );
}

function Tags({ projectId, lead, mayEdit }: { projectId: string; lead: LeadWithSegments; mayEdit: boolean }) {
  const tag = useTagLead(projectId, lead.id);
  const add = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const t = String(new FormData(form).get("tag") ?? "").trim();
    if (t) tag.mutate({ tag: t, remove: false }, { onSuccess: () => form.reset() });
  };
  return (
    <section aria-labelledby="lead-tags" className={section}>
      <h2 id="lead-tags" className="mb-3 text-lg font-semibold">
        Tags
      </h2>
      {lead.tags.length ? (
        <ul className="mb-3 flex flex-wrap gap-2">
          {lead.tags.map((t) => (
            <li key={t} className="flex items-center gap-1 rounded bg-slate-100 px-2 py-0.5 text-sm">
              {t}
              <button
                type="button"
                className="text-slate-700 hover:text-red-800 disabled:opacity-50"
                aria-label={`Remove tag ${t}`}
                disabled={!mayEdit || tag.isPending}
                onClick={() => tag.mutate({ tag: t, remove: true })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mb-3 text-sm text-slate-700">No tags.</p>
      )}
      <form onSubmit={add} className="flex items-end gap-2">
        <Field label="New tag">{(p) => <Input {...p} name="tag" disabled={!mayEdit} />}</Field>
        <Button type="submit" size="sm" disabled={!mayEdit || tag.isPending}>
          Add tag
        </Button>
      </form>
      <div className="mt-2">
        <ErrorMessage error={tag.error} title="Could not change the tags" />
      </div>
    </section>
  );
}

function EditDialog({
  projectId,
  lead,
  open,
  onClose,
}: {
  projectId: string;
  lead: LeadWithSegments;
  open: boolean;
  onClose: () => void;
}) {
  const update = useUpdateLead(projectId, lead.id);
  const [problem, setProblem] = useState<string | null>(null);
  const save = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    let attributes: unknown;
    try {
      attributes = JSON.parse(String(data.get("attributes") ?? "{}") || "{}");
    } catch {
      attributes = null;
    }
    if (!attributes || typeof attributes !== "object" || Array.isArray(attributes)) {
      setProblem('Attributes must be a JSON object, e.g. {"plan": "pro"}');
      return;
    }
    setProblem(null);
    const text = (k: string) => String(data.get(k) ?? "").trim() || null;
    update.mutate(
      {
        first_name: text("first_name"),
        last_name: text("last_name"),
        attributes: attributes as Record<string, unknown>,
      },
      { onSuccess: onClose },
    );
  };
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => !o && onClose()}
      title={`Edit ${lead.email}`}
      description="The attributes replace the lead's as a whole."
    >
      <form onSubmit={save} className="space-y-3">
        <Field label="First name">
          {(p) => <Input {...p} name="first_name" defaultValue={lead.first_name ?? ""} />}
        </Field>
        <Field label="Last name">
          {(p) => <Input {...p} name="last_name" defaultValue={lead.last_name ?? ""} />}
        </Field>
        <Field label="Attributes (JSON)">
          {(p) => (
            <Textarea
              {...p}
              name="attributes"
              rows={6}
              defaultValue={JSON.stringify(lead.attributes, null, 2)}
            />
          )}
        </Field>
        {problem && (
          <p role="alert" className="text-sm text-red-800">
            {problem}
          </p>
        )}
        <ErrorMessage error={update.error} title="Could not save the lead" />
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <Button type="button" variant="outline">
              Cancel
            </Button>
          </DialogClose>
          <Button type="submit" disabled={update.isPending}>
            Save
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

const money = (minor: string, currency: string) => {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(Number(minor) / 100);
  } catch {
    return `${minor} ${currency} (minor units)`;
  }
};

function TimelineEntry({ item }: { item: TimelineItem }) {
  switch (item.kind) {
    case "email":
      return (
        <>
          <Badge tone="blue">email</Badge>{" "}
          <Link className="text-blue-800 underline" to={`../../activity/${item.id}`} relative="path">
            {item.subject || "(no subject)"}
          </Link>{" "}
          <StatusBadge status={item.status} />
          {item.is_test ? <span className="text-slate-600"> (test)</span> : null}
        </>
      );
    case "event":
      return (
        <>
          <Badge>event</Badge> <span className="font-mono">{item.name}</span>
          {Object.keys(item.properties).length ? (
            <span className="ml-2 font-mono text-xs text-slate-600">{JSON.stringify(item.properties)}</span>
          ) : null}
        </>
      );
    case "reply":
      return (
        <>
          <Badge tone="green">reply</Badge> {item.subject}
          <span className="block text-slate-700">{item.reply_text}</span>
        </>
      );
    case "order":
      return (
        <>
          <Badge tone="amber">order</Badge> {item.order_id} at {item.shop_domain}:{" "}
          {money(item.total_minor, item.currency)}
          {item.cancelled ? " (cancelled)" : ""}
          {item.attributed_campaign_id ? " — attributed to a campaign" : ""}
        </>
      );
  }
}

function Timeline({ projectId, leadId }: { projectId: string; leadId: string }) {
  const t = useLeadTimeline(projectId, leadId);
  const items = t.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section aria-labelledby="lead-timeline" className={`${section} mt-4`}>
      <h2 id="lead-timeline" className="mb-3 text-lg font-semibold">
        Timeline
      </h2>
      {t.isPending && <Loading what="the timeline" />}
      <ErrorMessage error={t.error} title="Could not load the timeline" />
      {t.data &&
        (items.length ? (
          <ol className="space-y-2">
            {items.map((item) => (
              <li
                key={`${item.kind}-${item.id}`}
                className="flex gap-4 border-t border-slate-100 pt-2 text-sm"
              >
                <span className="w-48 shrink-0 text-slate-600">
                  <DateTime iso={item.at} />
                </span>
                <span>
                  <TimelineEntry item={item} />
                </span>
              </li>
            ))}
          </ol>
        ) : (
          <EmptyState title="Nothing yet">No events, emails, replies or orders for this lead.</EmptyState>
        ))}
      {t.hasNextPage && (
        <Button
          className="mt-3"
          variant="outline"
          size="sm"
          disabled={t.isFetchingNextPage}
          onClick={() => t.fetchNextPage()}
        >
          Show older
        </Button>
      )}
    </section>
  );
}
