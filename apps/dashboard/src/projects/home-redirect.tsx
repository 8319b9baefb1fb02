import { Navigate } from "react-router";
import { useSession, useSignOut } from "../auth/use-session";
import { Button } from "../ui/button";
import { EmptyState } from "../ui/states";

/** `/`: the first of the user's projects, or what to do when they have none. */
export default function HomeRedirect() {
  const session = useSession();
  const signOut = useSignOut();
  const first = session.data?.memberships[0];
  if (first) return <Navigate to={`/p/${first.project_id}/keys`} replace />;
  return (
    <main className="mx-auto max-w-xl p-8">
      <h1 className="sr-only">Your projects</h1>
      <EmptyState title="You are not a member of any project yet">
        <p>
          Ask an owner of a project to add {session.data?.user.email} on its Team page, or create a project
          with <code>pnpm admin projects create</code>.
        </p>
        <Button className="mt-4" variant="outline" onClick={() => signOut.mutate()}>
          Sign out
        </Button>
      </EmptyState>
    </main>
  );
}
