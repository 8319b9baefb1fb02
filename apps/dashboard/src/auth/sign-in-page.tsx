import { type FormEvent, useState } from "react";
import { Navigate, useSearchParams } from "react-router";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/input";
import { ErrorMessage } from "../ui/states";
import { useSession, useSignIn } from "./use-session";

/** Only paths inside the dashboard are followed after sign-in (never another site). */
export function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

export default function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get("next"));
  const session = useSession();
  const signIn = useSignIn();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");

  if (session.data) return <Navigate to={next} replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate({ email, password });
  };

  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-50 p-4">
      <form onSubmit={submit} className="w-full max-w-sm space-y-4 rounded-lg bg-white p-6 shadow" noValidate>
        <h1 className="text-xl font-semibold text-slate-900">Sign in to the dashboard</h1>
        <ErrorMessage error={signIn.error} title="Sign-in refused" />
        <Field label="Email">
          {(p) => (
            <Input
              {...p}
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(p) => (
            <Input
              {...p}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Button type="submit" className="w-full" disabled={signIn.isPending}>
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </Button>
        <p className="text-xs text-slate-600">
          No account yet? An owner or an admin of a project invites you by email; the first owner is made with{" "}
          <code>pnpm admin users create</code>.
        </p>
      </form>
    </main>
  );
}
