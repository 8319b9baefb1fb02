import { Suspense } from "react";
import { NavLink, Outlet, useNavigate } from "react-router";
import { useSession, useSignOut } from "../auth/use-session";
import { Button } from "../ui/button";
import { cn } from "../ui/cn";
import { Select } from "../ui/input";
import { EmptyState, ErrorMessage, Loading } from "../ui/states";
import { useCurrentProject, useProjects } from "./use-project";

const sections = [
  { to: "overview", label: "Overview" },
  { to: "activity", label: "Activity" },
  { to: "leads", label: "Leads" },
  { to: "segments", label: "Segments" },
  { to: "webhooks", label: "Webhooks" },
  { to: "suppressions", label: "Suppressions" },
  { to: "domains", label: "Domains" },
  { to: "keys", label: "API keys" },
  { to: "settings", label: "Settings" },
  { to: "templates", label: "Templates" },
  { to: "team", label: "Team" },
  { to: "audit", label: "Audit log" },
];

/** The shell of every project page: the project switcher (from the user's memberships), the sections, sign-out. */
export default function ProjectLayout() {
  const session = useSession();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const { projectId, membership, isPending } = useCurrentProject();
  const { projects, error: projectsError } = useProjects();

  return (
    <div className="min-h-screen bg-slate-50">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:p-2">
        Skip to content
      </a>
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-4 px-4 py-3">
          <span className="font-semibold text-slate-900">Email service</span>
          <label className="flex items-center gap-2 text-sm text-slate-700">
            Project
            <Select
              className="w-56"
              value={projectId}
              onChange={(e) => navigate(`/p/${e.target.value}/overview`)}
              aria-label="Switch project"
            >
              {!membership && <option value={projectId}>—</option>}
              {projects.map((m) => (
                <option key={m.project_id} value={m.project_id}>
                  {m.project_name} ({m.platform ? "platform owner" : m.role})
                </option>
              ))}
            </Select>
          </label>
          <nav aria-label="Project sections" className="flex flex-wrap gap-1">
            {sections.map((s) => (
              <NavLink
                key={s.to}
                to={s.to}
                className={({ isActive }) =>
                  cn(
                    "rounded-md px-3 py-1.5 text-sm text-slate-800 hover:bg-slate-100",
                    isActive && "bg-slate-200 font-medium text-slate-900",
                  )
                }
              >
                {s.label}
              </NavLink>
            ))}
          </nav>
          <div className="ml-auto flex items-center gap-3 text-sm text-slate-700">
            <span>{session.data?.user.email}</span>
            <Button
              variant="outline"
              size="sm"
              onClick={() => signOut.mutate(undefined, { onSettled: () => navigate("/sign-in") })}
            >
              Sign out
            </Button>
          </div>
        </div>
      </header>
      <main id="main" className="mx-auto max-w-6xl px-4 py-8">
        <ErrorMessage error={projectsError} title="Could not list the projects" />
        {isPending ? (
          <Loading what="your projects" />
        ) : !membership ? (
          <EmptyState title="This project is not one of yours">
            Pick one of your projects in the switcher above, or ask one of this project's owners to add you.
          </EmptyState>
        ) : (
          <Suspense fallback={<Loading what="the page" />}>
            <ErrorMessage error={signOut.error} title="Sign-out failed" />
            <Outlet />
          </Suspense>
        )}
      </main>
    </div>
  );
}
