import { type FormEvent, useEffect, useState } from "react";
import type { Project } from "../api/types";
import { canAdminister } from "../api/types";
import { useCurrentProject, useProject, useUpdateProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { Field, Input, Select, Textarea } from "../ui/input";
import { ErrorMessage, Loading, PageHeader } from "../ui/states";

const urlFields = [
  ["webhook_url", "Webhook URL", "Where status webhooks of live sends are posted."],
  ["webhook_url_dev", "Webhook URL (_dev)", "Where status webhooks of test-key sends are posted."],
  ["inbound_webhook_url", "Inbound URL", "Where replies and received mail are posted."],
  ["inbound_webhook_url_dev", "Inbound URL (_dev)", "Inbound posts for test-mode traffic."],
] as const;

type Form = Record<(typeof urlFields)[number][0] | "default_timezone" | "postal_address", string> & {
  on_send_unknown: Project["on_send_unknown"];
};

const formOf = (p: Project): Form => ({
  webhook_url: p.webhook_url ?? "",
  webhook_url_dev: p.webhook_url_dev ?? "",
  inbound_webhook_url: p.inbound_webhook_url ?? "",
  inbound_webhook_url_dev: p.inbound_webhook_url_dev ?? "",
  default_timezone: p.default_timezone ?? "",
  postal_address: p.postal_address ?? "",
  on_send_unknown: p.on_send_unknown,
});

export default function SettingsPage() {
  const { projectId, membership } = useCurrentProject();
  const project = useProject(projectId);
  const update = useUpdateProject(projectId);
  const [form, setForm] = useState<Form | null>(null);
  useEffect(() => {
    if (project.data) setForm(formOf(project.data));
  }, [project.data]);
  const mayEdit = canAdminister(membership?.role);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!form) return;
    // An empty field clears the setting (the API takes "" as null for URLs and the address).
    update.mutate({ ...form, default_timezone: form.default_timezone.trim() || null });
  };
  const set = (k: keyof Form) => (e: { target: { value: string } }) =>
    setForm((f) => (f ? { ...f, [k]: e.target.value } : f));

  return (
    <>
      <PageHeader title="Project settings" />
      {project.isPending && <Loading what="the settings" />}
      <ErrorMessage error={project.error} title="Could not load the settings" />
      {form && (
        <form
          onSubmit={submit}
          className="max-w-2xl space-y-5 rounded-lg border border-slate-200 bg-white p-6"
        >
          <fieldset disabled={!mayEdit} className="space-y-5">
            <legend className="sr-only">Settings of {project.data?.name}</legend>
            {!mayEdit && (
              <p className="text-sm text-slate-700">Only an owner or an admin may change these settings.</p>
            )}
            {urlFields.map(([k, label, hint]) => (
              <Field key={k} label={label} hint={`${hint} Leave empty for none.`}>
                {(p) => <Input {...p} type="url" placeholder="https://…" value={form[k]} onChange={set(k)} />}
              </Field>
            ))}
            <Field
              label="Default time zone"
              hint="IANA name, e.g. Europe/Berlin: scheduled sends without a zone use it."
            >
              {(p) => <Input {...p} value={form.default_timezone} onChange={set("default_timezone")} />}
            </Field>
            <Field
              label="Postal address"
              hint="Printed in the footer of campaigns; a campaign does not start without it."
            >
              {(p) => (
                <Textarea {...p} rows={3} value={form.postal_address} onChange={set("postal_address")} />
              )}
            </Field>
            <Field
              label="When a send's outcome is unknown"
              hint="A send whose worker died before the provider answered: send it again, or mark it failed."
            >
              {(p) => (
                <Select {...p} value={form.on_send_unknown} onChange={set("on_send_unknown")}>
                  <option value="resend">Resend it</option>
                  <option value="fail">Fail it</option>
                </Select>
              )}
            </Field>
            <div className="flex items-center gap-3">
              <Button type="submit" disabled={update.isPending}>
                Save settings
              </Button>
              {update.isSuccess && !update.isPending && (
                <p role="status" className="text-sm text-green-800">
                  Saved.
                </p>
              )}
            </div>
          </fieldset>
          <ErrorMessage error={update.error} title="Not saved" />
        </form>
      )}
    </>
  );
}
