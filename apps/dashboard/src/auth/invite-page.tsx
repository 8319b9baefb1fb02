import { type FormEvent, useState } from "react";
import { Link, Navigate, useParams } from "react-router";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/input";
import { ErrorMessage, Loading } from "../ui/states";
import { useAcceptInvitation, useInvitation } from "./use-invitation";
import { useSession } from "./use-session";

/**
 * `/invite/:token`, outside the signed-in layout: whose invitation, to which project and role; a newcomer sets a
 * name and a password, someone with an account signs in as the invited address and joins. Then the project opens.
 */
export default function InvitePage() {
  const { token = "" } = useParams();
  const lookup = useInvitation(token);
  const session = useSession();
  const accept = useAcceptInvitation(token);
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");

  if (accept.data) return <Navigate to={`/p/${accept.data.project_id}`} replace />;

  const inv = lookup.data?.invitation;
  const by = inv?.invited_by ? (inv.invited_by.name ?? inv.invited_by.email) : "An administrator";
  const signedInAs = session.data?.user.email ?? null;
  const next = `/sign-in?next=${encodeURIComponent(`/invite/${token}`)}`;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    accept.mutate({ name, password });
  };

  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-50 p-4">
      <div className="w-full max-w-md space-y-4 rounded-lg bg-white p-6 shadow">
        <h1 className="text-xl font-semibold text-slate-900">
          {inv ? `Join ${inv.project_name}` : "Your invitation"}
        </h1>
        {lookup.isPending && <Loading what="the invitation" />}
        <ErrorMessage error={lookup.error} title="This link does not work" />
        {inv && (
          <p className="text-sm text-slate-800">
            {by} invited <strong>{inv.email}</strong> to the project <strong>{inv.project_name}</strong> as{" "}
            {inv.role}.
          </p>
        )}
        {inv && inv.status !== "pending" && (
          <p
            role="alert"
            className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950"
          >
            {inv.status === "accepted"
              ? "This invitation was used already. "
              : inv.status === "revoked"
                ? `This invitation was withdrawn: ask ${by} for a new one. `
                : `This invitation expired: ask ${by} for a new one. `}
            <Link to="/sign-in" className="text-blue-800 underline">
              Sign in
            </Link>
          </p>
        )}
        {inv?.status === "pending" && lookup.data?.has_account && (
          <>
            {signedInAs === inv.email ? (
              <Button className="w-full" disabled={accept.isPending} onClick={() => accept.mutate({})}>
                Join {inv.project_name}
              </Button>
            ) : (
              <p className="text-sm text-slate-800">
                {signedInAs ? `You are signed in as ${signedInAs}. ` : "You have an account. "}
                <Link to={next} className="text-blue-800 underline">
                  Sign in as {inv.email}
                </Link>{" "}
                to accept.
              </p>
            )}
            <ErrorMessage error={accept.error} title="Not joined" />
          </>
        )}
        {inv?.status === "pending" && lookup.data && !lookup.data.has_account && (
          <form onSubmit={submit} className="space-y-4" noValidate>
            <ErrorMessage error={accept.error} title="Not joined" />
            <Field label="Email">
              {(p) => <Input {...p} type="email" autoComplete="username" readOnly value={inv.email} />}
            </Field>
            <Field label="Your name">
              {(p) => (
                <Input
                  {...p}
                  autoComplete="name"
                  required
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                />
              )}
            </Field>
            <Field label="Choose a password" hint="At least 12 characters.">
              {(p) => (
                <Input
                  {...p}
                  type="password"
                  autoComplete="new-password"
                  required
                  minLength={12}
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              )}
            </Field>
            <Button type="submit" className="w-full" disabled={accept.isPending}>
              {accept.isPending ? "Joining…" : "Accept and join"}
            </Button>
            <p className="text-xs text-slate-600">
              The link works until {new Date(inv.expires_at).toLocaleString()}, once.
            </p>
          </form>
        )}
      </div>
    </main>
  );
}
