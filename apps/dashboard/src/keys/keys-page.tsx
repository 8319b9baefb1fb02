import { useState } from "react";
import type { ApiKeyView } from "../api/types";
import { canAdminister } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Dialog, DialogClose } from "../ui/dialog";
import { ErrorMessage, Loading, PageHeader } from "../ui/states";
import { type KeyMode, useKeys, useRegenerateKey } from "./use-keys";

const about: Record<KeyMode, string> = {
  live: "Sends real email to real recipients.",
  test: "Goes through the whole pipeline but never delivers; its activities show only in the test view.",
};

export default function KeysPage() {
  const { projectId, membership } = useCurrentProject();
  const keys = useKeys(projectId);
  return (
    <>
      <PageHeader title="API keys" />
      <p className="mb-6 max-w-2xl text-sm text-slate-700">
        Your application sends with these keys as <code>Authorization: Bearer …</code>. The live and the test
        key are separate: regenerating one leaves the other working.
      </p>
      {keys.isPending && <Loading what="the keys" />}
      <ErrorMessage error={keys.error} title="Could not load the keys" />
      {keys.data && (
        <div className="grid gap-6 md:grid-cols-2">
          {(["live", "test"] as const).map((mode) => (
            <KeyCard
              key={mode}
              mode={mode}
              view={keys.data[mode]}
              projectId={projectId}
              mayRegenerate={canAdminister(membership?.role)}
            />
          ))}
        </div>
      )}
    </>
  );
}

function KeyCard({
  mode,
  view,
  projectId,
  mayRegenerate,
}: {
  mode: KeyMode;
  view: ApiKeyView | null;
  projectId: string;
  mayRegenerate: boolean;
}) {
  const [shown, setShown] = useState(false);
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const regenerate = useRegenerateKey(projectId);
  const title = mode === "live" ? "Live key" : "Test key";
  const hidden = view ? `${view.prefix}${"•".repeat(24)}` : "";

  const copy = async () => {
    if (!view) return;
    await navigator.clipboard.writeText(view.key).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };

  return (
    <section
      aria-labelledby={`key-${mode}`}
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-5"
    >
      <div className="flex items-center gap-2">
        <h2 id={`key-${mode}`} className="text-lg font-semibold text-slate-900">
          {title}
        </h2>
        <Badge tone={mode === "live" ? "green" : "amber"}>{mode}</Badge>
      </div>
      <p className="text-sm text-slate-700">{about[mode]}</p>
      {view ? (
        <>
          <code
            data-testid={`${mode}-key`}
            className="block rounded bg-slate-100 p-2 text-sm break-all text-slate-900"
          >
            {shown ? view.key : hidden}
          </code>
          <p className="text-xs text-slate-600">Created {new Date(view.created_at).toLocaleString()}</p>
        </>
      ) : (
        <p className="text-sm text-slate-700">No active {mode} key: regenerate one to start sending.</p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button
          variant="outline"
          size="sm"
          onClick={() => setShown(!shown)}
          disabled={!view}
          aria-pressed={shown}
        >
          {shown ? `Hide ${mode} key` : `Show ${mode} key`}
        </Button>
        <Button variant="outline" size="sm" onClick={copy} disabled={!view}>
          {copied ? "Copied" : `Copy ${mode} key`}
        </Button>
        <Button
          variant="destructive"
          size="sm"
          disabled={!mayRegenerate}
          onClick={() => setConfirming(true)}
          aria-describedby={!mayRegenerate ? `why-${mode}` : undefined}
        >
          Regenerate {mode} key
        </Button>
      </div>
      {!mayRegenerate && (
        <p id={`why-${mode}`} className="text-xs text-slate-600">
          Only an owner or an admin of this project may regenerate keys.
        </p>
      )}
      {regenerate.isSuccess && (
        <p role="status" className="text-sm text-green-800">
          A new {mode} key is active; the old one no longer works.
        </p>
      )}
      <ErrorMessage error={regenerate.error} title={`Could not regenerate the ${mode} key`} />
      <Dialog
        open={confirming}
        onOpenChange={setConfirming}
        title={`Regenerate the ${mode} key?`}
        description={
          <>
            The current {mode} key <strong>stops working at once</strong>: every application still using it
            gets 401 until you give it the new key. The {mode === "live" ? "test" : "live"} key is not
            affected.
          </>
        }
      >
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button
            variant="destructive"
            onClick={() => regenerate.mutate(mode, { onSettled: () => setConfirming(false) })}
            disabled={regenerate.isPending}
          >
            Regenerate now
          </Button>
        </div>
      </Dialog>
    </section>
  );
}
