import { Slot } from "@radix-ui/react-slot";
import type { ButtonHTMLAttributes } from "react";
import { cn } from "./cn";

const variants = {
  default: "bg-blue-700 text-white hover:bg-blue-800",
  outline: "border border-slate-300 bg-white text-slate-900 hover:bg-slate-100",
  destructive: "bg-red-700 text-white hover:bg-red-800",
  ghost: "text-slate-800 hover:bg-slate-100",
} as const;

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: keyof typeof variants;
  size?: "sm" | "md";
  /** Render the child element (a link) with the button's look. */
  asChild?: boolean;
}

export function Button({ variant = "default", size = "md", asChild, className, ...props }: ButtonProps) {
  const Comp = asChild ? Slot : "button";
  return (
    <Comp
      className={cn(
        "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors disabled:cursor-not-allowed disabled:opacity-60",
        size === "sm" ? "h-8 px-3 text-sm" : "h-10 px-4 text-sm",
        variants[variant],
        className,
      )}
      {...props}
    />
  );
}
