import type { ColumnDef } from "@tanstack/react-table";
import { type FormEvent, useMemo, useState } from "react";
import type { Member, Role } from "../api/types";
import { canAdminister } from "../api/types";
import { useSession } from "../auth/use-session";
import { useCurrentProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { Field, Input, Select } from "../ui/input";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DataTable } from "../ui/table";
import { InvitationsPanel } from "./invitations-panel";
import { useMembers, usePutMember, useRemoveMember } from "./use-members";

const ROLES: Role[] = ["owner", "admin", "member", "viewer"];

export default function TeamPage() {
  const { projectId, membership } = useCurrentProject();
  const me = useSession().data?.user;
  const members = useMembers(projectId);
  const put = usePutMember(projectId);
  const remove = useRemoveMember(projectId);
  const mayManage = canAdminister(membership?.role);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");

  const columns = useMemo<ColumnDef<Member, unknown>[]>(
    () => [
      { header: "Email", accessorKey: "email" },
      { header: "Name", cell: ({ row }) => row.original.name ?? "—" },
      {
        header: "Role",
        cell: ({ row }) => (
          <Select
            aria-label={`Role of ${row.original.email}`}
            className="w-32"
            value={row.original.role}
            disabled={!mayManage || put.isPending}
            onChange={(e) => put.mutate({ email: row.original.email, role: e.target.value as Role })}
          >
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </Select>
        ),
      },
      { header: "Member since", cell: ({ row }) => new Date(row.original.since).toLocaleDateString() },
      {
        header: "Actions",
        cell: ({ row }) => (
          <Button
            variant="outline"
            size="sm"
            disabled={!mayManage || remove.isPending}
            onClick={() => {
              if (window.confirm(`Remove ${row.original.email} from this project?`))
                remove.mutate(row.original.user_id);
            }}
          >
            {row.original.user_id === me?.id ? "Leave" : "Remove"}
            <span className="sr-only"> {row.original.email}</span>
          </Button>
        ),
      },
    ],
    [mayManage, put, remove, me?.id],
  );

  const add = (e: FormEvent) => {
    e.preventDefault();
    put.mutate({ email, role }, { onSuccess: () => setEmail("") });
  };

  return (
    <>
      <PageHeader title="Team" />
      <ErrorMessage error={put.error ?? remove.error} title="Not changed" />
      {members.isPending && <Loading what="the members" />}
      <ErrorMessage error={members.error} title="Could not load the members" />
      {members.data &&
        (members.data.length ? (
          <DataTable caption="Members of this project" columns={columns} data={members.data} />
        ) : (
          <EmptyState title="No members yet">Add someone by email below.</EmptyState>
        ))}
      <form
        onSubmit={add}
        className="mt-8 max-w-2xl space-y-4 rounded-lg border border-slate-200 bg-white p-5"
      >
        <h2 className="text-lg font-semibold text-slate-900">Add a member</h2>
        <p className="text-sm text-slate-700">
          For someone who has an account already; anyone else, invite by email below.
        </p>
        <fieldset disabled={!mayManage} className="flex flex-wrap items-end gap-3">
          <div className="min-w-64 flex-1">
            <Field label="Email">
              {(p) => (
                <Input
                  {...p}
                  type="email"
                  required
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                />
              )}
            </Field>
          </div>
          <Field label="Role">
            {(p) => (
              <Select {...p} className="w-32" value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </Select>
            )}
          </Field>
          <Button type="submit">Add member</Button>
        </fieldset>
        {!mayManage && (
          <p className="text-sm text-slate-700">Only an owner or an admin may change the team.</p>
        )}
      </form>
      <InvitationsPanel
        projectId={projectId}
        mayManage={mayManage}
        myRole={membership?.role}
        platform={me?.platform_owner === true}
      />
    </>
  );
}
