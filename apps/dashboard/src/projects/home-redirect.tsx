import { Navigate } from "react-router";
import { useSession, useSignOut } from "../auth/use-session";
import { Button } from "../ui/button";
import { EmptyState, ErrorMessage, Loading } from "../ui/states";
import { useProjects } from "./use-project";

/** `/`: the first of the user's projects, or what to do when they have none. */
export default function HomeRedirect() {
  const session = useSession();
  const signOut = useSignOut();
  const { projects, isPending, error } = useProjects();
  const first = projects[0];
  if (first) return <Navigate to={`/p/${first.project_id}/overview`} replace />;
  if (isPending) return <Loading what="your projects" />;
  return (
    <main className="mx-auto max-w-xl p-8">
      <h1 className="sr-only">Your projects</h1>
      <ErrorMessage error={error} title="Could not list the projects" />
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
