import type { HTMLAttributes } from "react";
import { cn } from "./cn";

const tones = {
  neutral: "bg-slate-100 text-slate-800",
  green: "bg-green-100 text-green-900",
  red: "bg-red-100 text-red-900",
  amber: "bg-amber-100 text-amber-900",
  blue: "bg-blue-100 text-blue-900",
} as const;

export function Badge({
  tone = "neutral",
  className,
  ...props
}: HTMLAttributes<HTMLSpanElement> & { tone?: keyof typeof tones }) {
  return (
    <span
      className={cn(
        "inline-flex items-center rounded px-2 py-0.5 text-xs font-medium",
        tones[tone],
        className,
      )}
      {...props}
    />
  );
}
