import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

/** Class names merged the shadcn/ui way: later Tailwind classes override earlier ones. */
export function cn(...inputs: ClassValue[]): string {
  return twMerge(clsx(inputs));
}
