import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { ErrorMessage, Loading } from "../ui/states";
import { useSession } from "./use-session";

/** A page reached without a session goes to sign-in, which comes back here afterwards (`next`). */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <Loading what="your session" />;
  if (session.error) return <ErrorMessage error={session.error} title="Could not check your session" />;
  if (!session.data) {
    const next = location.pathname + location.search;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children}</>;
}
