import { useMemo } from "react";
import { renderPreview } from "./render-preview";

/**
 * The rendered subject and HTML. The HTML is shown in a sandboxed iframe with no permissions: a template's scripts
 * do not run and it cannot reach the dashboard's session.
 */
export function TemplatePreview({
  subject,
  html,
  variables,
}: {
  subject: string;
  html: string;
  variables: string;
}) {
  const preview = useMemo(() => renderPreview(subject, html, variables), [subject, html, variables]);
  if (!preview.ok)
    return (
      <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
        {preview.problem}
      </p>
    );
  return (
    <div className="space-y-2">
      <p className="text-sm text-slate-900">
        <span className="font-medium">Subject: </span>
        <span data-testid="preview-subject">{preview.subject}</span>
      </p>
      <iframe
        title="Rendered email preview"
        sandbox=""
        srcDoc={preview.html}
        className="h-96 w-full rounded-md border border-slate-300 bg-white"
      />
      {preview.variablesUsed.length > 0 && (
        <p className="text-xs text-slate-600">Variables used: {preview.variablesUsed.join(", ")}</p>
      )}
    </div>
  );
}
