import { type FormEvent, useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { canEdit } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { Field, Input, Textarea } from "../ui/input";
import { ErrorMessage, Loading, PageHeader } from "../ui/states";
import { SendTestDialog } from "./send-test-dialog";
import { TemplatePreview } from "./template-preview";
import { useSaveTemplate, useTemplates } from "./use-templates";

const SAMPLE_HTML = `<h1>Hello {name || "there"}</h1>
<p>Your order {order.id} is on its way.</p>
<ul>{{#each items}}<li>{this.title} × {this.qty}</li>{{/each}}</ul>
{!footer}`;
const SAMPLE_VARS = JSON.stringify(
  {
    name: "Ada",
    order: { id: "A-1001" },
    items: [{ title: "Tea", qty: 2 }],
    footer: "<p><em>Thanks!</em></p>",
  },
  null,
  2,
);

export default function TemplateEditorPage() {
  const { projectId, membership } = useCurrentProject();
  const { templateId } = useParams();
  const isNew = !templateId;
  const templates = useTemplates(projectId);
  const save = useSaveTemplate(projectId);
  const navigate = useNavigate();
  const existing = templates.data?.find((t) => t.template_id === templateId);
  const [name, setName] = useState("");
  const [subject, setSubject] = useState(isNew ? "Your order {order.id}" : "");
  const [html, setHtml] = useState(isNew ? SAMPLE_HTML : "");
  const [variables, setVariables] = useState(SAMPLE_VARS);
  useEffect(() => {
    if (existing) {
      setName(existing.name);
      setSubject(existing.subject);
      setHtml(existing.html);
    }
  }, [existing]);
  const mayEdit = canEdit(membership?.role);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(
      {
        ...(templateId ? { id: templateId } : {}),
        body: { name, subject, html, text: existing?.text ?? null },
      },
      { onSuccess: (t) => isNew && navigate(`../${t.template_id}`, { relative: "path", replace: true }) },
    );
  };

  if (!isNew && templates.isPending) return <Loading what="the template" />;
  if (!isNew && templates.data && !existing)
    return <ErrorMessage error={new Error("No such template in this project")} title="Not found" />;

  return (
    <>
      <PageHeader title={isNew ? "New template" : `Template: ${existing?.name ?? ""}`}>
        <Link to=".." relative="path" className="text-sm text-blue-800 underline">
          All templates
        </Link>
      </PageHeader>
      <ErrorMessage error={templates.error} title="Could not load the templates" />
      <div className="grid gap-6 lg:grid-cols-2">
        <form onSubmit={submit} className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
          <fieldset disabled={!mayEdit} className="space-y-4">
            <legend className="sr-only">Template</legend>
            <Field label="Name">
              {(p) => <Input {...p} required value={name} onChange={(e) => setName(e.target.value)} />}
            </Field>
            <Field label="Subject">
              {(p) => <Input {...p} value={subject} onChange={(e) => setSubject(e.target.value)} />}
            </Field>
            <Field
              label="HTML"
              hint={
                '{v} escaped, {v || "fallback"} a default, {!raw} unescaped HTML, {{#each items}}…{{/each}} a loop ({this.field} inside).'
              }
            >
              {(p) => <Textarea {...p} rows={12} value={html} onChange={(e) => setHtml(e.target.value)} />}
            </Field>
            <Button type="submit" disabled={save.isPending}>
              {isNew ? "Create template" : "Save template"}
            </Button>
            {save.isSuccess && (
              <p role="status" className="text-sm text-green-800">
                Saved.
              </p>
            )}
            <ErrorMessage error={save.error} title="Not saved" />
          </fieldset>
        </form>
        <section
          aria-labelledby="preview-title"
          className="space-y-4 rounded-lg border border-slate-200 bg-white p-5"
        >
          <h2 id="preview-title" className="text-lg font-semibold text-slate-900">
            Live preview
          </h2>
          <Field
            label="Sample variables (JSON)"
            hint="Edit them to see the preview change; they are not saved."
          >
            {(p) => (
              <Textarea {...p} rows={8} value={variables} onChange={(e) => setVariables(e.target.value)} />
            )}
          </Field>
          <TemplatePreview subject={subject} html={html} variables={variables} />
          {templateId && (
            <SendTestDialog
              projectId={projectId}
              templateId={templateId}
              variables={variables}
              disabled={!mayEdit}
              unsaved={
                !!existing &&
                (existing.name !== name || existing.subject !== subject || existing.html !== html)
              }
            />
          )}
          {!templateId && <p className="text-sm text-slate-700">Create the template to send a test of it.</p>}
        </section>
      </div>
    </>
  );
}
