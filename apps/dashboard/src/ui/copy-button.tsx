import { useEffect, useState } from "react";
import { Button } from "./button";

/**
 * Copies `value` to the clipboard and says so ("Copied", for two seconds). `what` completes the button's name for
 * screen readers ("Copy the value of DKIM 1", then "Copied the value of DKIM 1"), so the visible word is always
 * part of it; a refused clipboard (no permission, no secure context) says so too, instead of pretending.
 */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(t);
  }, [state]);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  return (
    <Button size="sm" variant="outline" onClick={copy} className="shrink-0">
      <span aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed:" : "Copy"}
        <span className="sr-only"> {what}</span>
      </span>
    </Button>
  );
}
