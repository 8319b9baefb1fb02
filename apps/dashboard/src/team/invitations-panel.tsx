import type { ColumnDef } from "@tanstack/react-table";
import { type FormEvent, useMemo, useState } from "react";
import type { Invitation, InvitationSent, Role } from "../api/types";
import { Button } from "../ui/button";
import { Field, Input, Select } from "../ui/input";
import { EmptyState, ErrorMessage, Loading } from "../ui/states";
import { DataTable } from "../ui/table";
import { useInvitations, useInvite, useResendInvitation, useRevokeInvitation } from "./use-invitations";

/** The roles an inviter may offer: owner only to an owner (the API refuses it otherwise). */
const rolesFor = (mine: Role | undefined, platform: boolean): Role[] =>
  mine === "owner" || platform ? ["viewer", "member", "admin", "owner"] : ["viewer", "member", "admin"];

/**
 * Invitations: an email with a link that expires, sent through the platform's own send model. When the platform has
 * no sender configured, the API gives the link instead, shown here once for the inviter to pass on.
 */
export function InvitationsPanel({
  projectId,
  mayManage,
  myRole,
  platform,
}: {
  projectId: string;
  mayManage: boolean;
  myRole: Role | undefined;
  platform: boolean;
}) {
  const invitations = useInvitations(projectId);
  const invite = useInvite(projectId);
  const resend = useResendInvitation(projectId);
  const revoke = useRevokeInvitation(projectId);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [sent, setSent] = useState<InvitationSent | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);

  const columns = useMemo<ColumnDef<Invitation, unknown>[]>(
    () => [
      { header: "Email", accessorKey: "email" },
      { header: "Role", accessorKey: "role" },
      {
        header: "Invited by",
        cell: ({ row }) =>
          row.original.invited_by?.name ?? row.original.invited_by?.email ?? "the admin token",
      },
      { header: "Link expires", cell: ({ row }) => new Date(row.original.expires_at).toLocaleString() },
      {
        header: "Actions",
        cell: ({ row }) => (
          <div className="flex gap-2">
            <Button
              variant="outline"
              size="sm"
              disabled={!mayManage || resend.isPending}
              onClick={() => {
                setRevoked(null);
                resend.mutate(row.original.id, { onSuccess: setSent });
              }}
            >
              Resend<span className="sr-only"> the invitation of {row.original.email}</span>
            </Button>
            <Button
              variant="outline"
              size="sm"
              disabled={!mayManage || revoke.isPending}
              onClick={() => {
                if (
                  !window.confirm(`Revoke the invitation of ${row.original.email}? Its link stops working.`)
                )
                  return;
                setSent(null);
                revoke.mutate(row.original.id, { onSuccess: () => setRevoked(row.original.email) });
              }}
            >
              Revoke<span className="sr-only"> the invitation of {row.original.email}</span>
            </Button>
          </div>
        ),
      },
    ],
    [mayManage, resend, revoke],
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setRevoked(null);
    invite.mutate(
      { email, role },
      {
        onSuccess: (s) => {
          setSent(s);
          setEmail("");
        },
      },
    );
  };

  return (
    <section aria-labelledby="invitations-title" className="mt-8 space-y-4">
      <h2 id="invitations-title" className="text-lg font-semibold text-slate-900">
        Invitations
      </h2>
      <form onSubmit={submit} className="max-w-2xl space-y-4 rounded-lg border border-slate-200 bg-white p-5">
        <p className="text-sm text-slate-700">
          Invite someone by email: they get a link that works once, for 72 hours, where they choose a name and
          a password (or, with an account already, sign in) and join this project with the role you give.
        </p>
        <fieldset disabled={!mayManage} className="flex flex-wrap items-end gap-3">
          <legend className="sr-only">Invite someone</legend>
          <div className="min-w-64 flex-1">
            <Field label="Email to invite">
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
          <Field label="Invite as">
            {(p) => (
              <Select {...p} className="w-32" value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {rolesFor(myRole, platform).map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </Select>
            )}
          </Field>
          <Button type="submit" disabled={invite.isPending}>
            {invite.isPending ? "Inviting…" : "Send invitation"}
          </Button>
        </fieldset>
        {!mayManage && <p className="text-sm text-slate-700">Only an owner or an admin may invite.</p>}
      </form>
      <ErrorMessage error={invite.error ?? resend.error ?? revoke.error} title="Not done" />
      {sent && <SentNotice sent={sent} />}
      {revoked && (
        <p role="status" className="text-sm text-green-800">
          Revoked the invitation of {revoked}: its link no longer works.
        </p>
      )}
      {invitations.isPending && <Loading what="the invitations" />}
      <ErrorMessage error={invitations.error} title="Could not load the invitations" />
      {invitations.data &&
        (invitations.data.length ? (
          <DataTable caption="Pending invitations" columns={columns} data={invitations.data} />
        ) : (
          <EmptyState title="No pending invitations">
            Invite someone above; their invitation waits here until they accept it.
          </EmptyState>
        ))}
    </section>
  );
}

function SentNotice({ sent }: { sent: InvitationSent }) {
  if (sent.email_sent)
    return (
      <p role="status" className="text-sm text-green-800">
        Invitation emailed to {sent.invitation.email}.
      </p>
    );
  return (
    <div
      role="status"
      className="max-w-2xl space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm"
    >
      <p className="text-amber-950">
        Invitation for {sent.invitation.email} made, but not emailed: {sent.email_problem}. Pass this link on
        to them yourself; it is shown only now.
      </p>
      <Field label="Invitation link">
        {(p) => (
          <Input
            {...p}
            readOnly
            value={sent.invite_url}
            data-testid="invite-url"
            onFocus={(e) => e.currentTarget.select()}
          />
        )}
      </Field>
    </div>
  );
}
