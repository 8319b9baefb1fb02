import * as D from "@radix-ui/react-dialog";
import type { ReactNode } from "react";

/** A modal on Radix's Dialog (focus trapped and returned, Escape closes, title and description announced). */
export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  children: ReactNode;
}) {
  return (
    <D.Root open={open} onOpenChange={onOpenChange}>
      <D.Portal>
        <D.Overlay className="fixed inset-0 bg-black/40" />
        <D.Content className="fixed top-1/2 left-1/2 w-[min(32rem,90vw)] -translate-x-1/2 -translate-y-1/2 space-y-4 rounded-lg bg-white p-6 shadow-xl">
          <D.Title className="text-lg font-semibold text-slate-900">{title}</D.Title>
          <D.Description className="text-sm text-slate-700">{description}</D.Description>
          {children}
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}

export const DialogClose = D.Close;
