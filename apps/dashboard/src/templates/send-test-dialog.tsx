import { type FormEvent, useState } from "react";
import { Button } from "../ui/button";
import { Dialog, DialogClose } from "../ui/dialog";
import { Field, Input } from "../ui/input";
import { ErrorMessage } from "../ui/states";
import { useSendTestTemplate } from "./use-templates";

/** The sample variables as the API takes them, or the problem in words (the preview shows the same one). */
function parseVariables(
  json: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  try {
    const v: unknown = json.trim() ? JSON.parse(json) : {};
    if (v && typeof v === "object" && !Array.isArray(v))
      return { ok: true, value: v as Record<string, unknown> };
  } catch {
    // said below
  }
  return { ok: false, problem: "Fix the sample variables first: they must be a JSON object" };
}

/**
 * "Send a test" of the saved template to one address, with the preview's sample variables: a test send (hidden
 * from the live activity, not counted) unless the user asks for a live one.
 */
export function SendTestDialog({
  projectId,
  templateId,
  variables,
  disabled,
  unsaved,
}: {
  projectId: string;
  templateId: string;
  variables: string;
  disabled: boolean;
  /** the editor has changes not saved yet: the test sends the saved version, so say so */
  unsaved: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState("");
  const [from, setFrom] = useState("");
  const [live, setLive] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const send = useSendTestTemplate(projectId, templateId);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const vars = parseVariables(variables);
    if (!vars.ok) return setProblem(vars.problem);
    setProblem(null);
    send.mutate({
      to,
      ...(from.trim() ? { from: from.trim() } : {}),
      variables: vars.value,
      mode: live ? "live" : "test",
    });
  };

  return (
    <>
      <Button
        type="button"
        variant="outline"
        disabled={disabled}
        onClick={() => {
          send.reset();
          setProblem(null);
          setOpen(true);
        }}
      >
        Send test
      </Button>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title="Send a test of this template"
        description={
          <>
            The saved template, rendered with the sample variables, subject prefixed [Test].
            {unsaved && " Your unsaved changes are not in it: save first to test them."}
          </>
        }
      >
        <form onSubmit={submit} className="space-y-4" noValidate>
          <Field label="Send to">
            {(p) => <Input {...p} type="email" required value={to} onChange={(e) => setTo(e.target.value)} />}
          </Field>
          <Field
            label="From (optional)"
            hint="A verified sender of this project; empty: its first verified address."
          >
            {(p) => <Input {...p} type="email" value={from} onChange={(e) => setFrom(e.target.value)} />}
          </Field>
          <label className="flex items-center gap-2 text-sm text-slate-900">
            <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} />
            Send as live (counted, shown in the live activity; otherwise a test send)
          </label>
          <ErrorMessage error={problem ? new Error(problem) : send.error} title="Not sent" />
          {send.data && (
            <p
              role="status"
              className={send.data.skipped ? "text-sm text-amber-900" : "text-sm text-green-800"}
            >
              {send.data.message}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <DialogClose asChild>
              <Button type="button" variant="outline">
                Close
              </Button>
            </DialogClose>
            <Button type="submit" disabled={send.isPending || !to}>
              {send.isPending ? "Sending…" : "Send"}
            </Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
