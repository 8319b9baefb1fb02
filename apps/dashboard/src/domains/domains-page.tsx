import { type FormEvent } from "react";
import { canEdit } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/input";
import { EmptyState, ErrorMessage, Loading, PageHeader } from "../ui/states";
import { DomainCard } from "./domain-card";
import { SenderAddresses } from "./sender-addresses";
import { useDomains, useRegisterDomain } from "./use-domains";

/**
 * Domains and senders (issue 45): a project's sending domains with their 7 DNS records to copy, verification with
 * the state of each record, and single addresses verified by a link the provider emails. A viewer reads everything
 * and is shown no control that changes anything (the API refuses it anyway).
 */
export default function DomainsPage() {
  const { projectId, membership } = useCurrentProject();
  const mayEdit = canEdit(membership?.role);
  const domains = useDomains(projectId);

  return (
    <>
      <PageHeader title="Domains and senders" />
      <p className="mb-6 max-w-3xl text-sm text-slate-700">
        Mail is sent from a domain you verified, or from a single address verified by a link. A domain needs 7
        DNS records at your DNS provider: copy each one there, then verify. Changes to DNS can take up to 72
        hours to be seen.
      </p>
      {!mayEdit && (
        <p className="mb-4 text-sm text-slate-700">
          You are a viewer of this project: you can see its domains and senders, but only an owner, admin or
          member may add, verify or remove them.
        </p>
      )}
      {mayEdit && <RegisterForm projectId={projectId} />}
      <section aria-labelledby="domains-heading" className="mb-10">
        <h2 id="domains-heading" className="mb-3 text-lg font-semibold text-slate-900">
          Domains
        </h2>
        {domains.isPending && <Loading what="the domains" />}
        <ErrorMessage error={domains.error} title="Could not load the domains" />
        {domains.data &&
          (domains.data.domains.length ? (
            <div className="space-y-6">
              {domains.data.domains.map((d) => (
                <DomainCard key={d.domain} projectId={projectId} summary={d} mayEdit={mayEdit} />
              ))}
            </div>
          ) : (
            <EmptyState title="No domains yet">
              {mayEdit
                ? "Register your sending domain above: you get the 7 DNS records to add at your DNS provider, then verify it here."
                : "An owner, admin or member of this project registers its sending domain here."}
            </EmptyState>
          ))}
      </section>
      <SenderAddresses projectId={projectId} mayEdit={mayEdit} />
    </>
  );
}

function RegisterForm({ projectId }: { projectId: string }) {
  const register = useRegisterDomain(projectId);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const value = (k: string) => String(data.get(k) ?? "").trim();
    register.mutate(
      { domain: value("domain"), sender_name: value("sender_name"), sender_email: value("sender_email") },
      { onSuccess: () => form.reset() },
    );
  };
  return (
    <section
      aria-labelledby="register-domain"
      className="mb-8 rounded-lg border border-slate-200 bg-white p-4"
    >
      <h2 id="register-domain" className="mb-3 text-lg font-semibold text-slate-900">
        Register a domain
      </h2>
      <form onSubmit={submit} className="grid gap-3 md:grid-cols-4">
        <Field label="Domain" hint="e.g. shop.example.com">
          {(p) => <Input {...p} name="domain" required autoComplete="off" />}
        </Field>
        <Field label="Sender name" hint="the From name">
          {(p) => <Input {...p} name="sender_name" required />}
        </Field>
        <Field label="Sender address" hint="an address on the domain">
          {(p) => <Input {...p} name="sender_email" type="email" required />}
        </Field>
        <div className="flex items-start pt-6">
          <Button type="submit" disabled={register.isPending}>
            Register domain
          </Button>
        </div>
      </form>
      {register.isSuccess && (
        <p role="status" className="mt-3 text-sm text-green-800">
          {register.data.domain} is registered: add its 7 DNS records below at your DNS provider, then verify.
        </p>
      )}
      <div className="mt-3">
        <ErrorMessage error={register.error} title="Could not register the domain" />
      </div>
    </section>
  );
}
