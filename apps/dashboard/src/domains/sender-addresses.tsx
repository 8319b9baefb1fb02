import { type FormEvent, useState } from "react";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { DateTime } from "../ui/datetime";
import { Dialog, DialogClose } from "../ui/dialog";
import { Field, Input } from "../ui/input";
import { EmptyState, ErrorMessage, Loading } from "../ui/states";
import {
  type SenderAddress,
  useAddSenderAddress,
  useCheckSenderAddress,
  useDeleteSenderAddress,
  useResendVerification,
  useSenderAddresses,
} from "./use-domains";

const TONE = { verified: "green", pending: "amber", failed: "red" } as const;

/** Single addresses verified by the link the provider emails them: add, check, resend, remove. */
export function SenderAddresses({ projectId, mayEdit }: { projectId: string; mayEdit: boolean }) {
  const list = useSenderAddresses(projectId);
  const add = useAddSenderAddress(projectId);
  const check = useCheckSenderAddress(projectId);
  const resend = useResendVerification(projectId);
  const remove = useDeleteSenderAddress(projectId);
  const [removing, setRemoving] = useState<SenderAddress | null>(null);
  // one line says what the last action did, whichever it was
  const [done, setDone] = useState<string | null>(null);

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    add.mutate(
      {
        sender_email: String(data.get("sender_email") ?? "").trim(),
        sender_name: String(data.get("sender_name") ?? "").trim(),
      },
      {
        onSuccess: (d) => {
          form.reset();
          setDone(
            `A verification email was sent to ${d.sender_email}: follow its link, then check its status here.`,
          );
        },
      },
    );
  };
  return (
    <section aria-labelledby="addresses-heading">
      <h2 id="addresses-heading" className="mb-3 text-lg font-semibold text-slate-900">
        Single sender addresses
      </h2>
      <p className="mb-4 max-w-3xl text-sm text-slate-700">
        No domain of your own? Verify one address instead: the provider emails it a link, and once it is
        followed the address can send.
      </p>
      {mayEdit && (
        <form
          onSubmit={submit}
          aria-label="Verify an address"
          className="mb-4 grid gap-3 rounded-lg border border-slate-200 bg-white p-4 md:grid-cols-3"
        >
          <Field label="Address to verify">
            {(p) => <Input {...p} name="sender_email" type="email" required />}
          </Field>
          <Field label="Its sender name">{(p) => <Input {...p} name="sender_name" required />}</Field>
          <div className="flex items-end">
            <Button type="submit" disabled={add.isPending}>
              Send verification email
            </Button>
          </div>
        </form>
      )}
      {done && (
        <p role="status" className="mb-3 text-sm text-green-800">
          {done}
        </p>
      )}
      <ErrorMessage error={add.error} title="Could not start the verification" />
      <ErrorMessage error={check.error} title="Could not check the address" />
      <ErrorMessage error={resend.error} title="Could not resend the verification email" />
      <ErrorMessage error={remove.error} title="Could not remove the address" />
      {list.isPending && <Loading what="the sender addresses" />}
      <ErrorMessage error={list.error} title="Could not load the sender addresses" />
      {list.data &&
        (list.data.addresses.length ? (
          <div className="overflow-x-auto rounded-md border border-slate-200 bg-white">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Single sender addresses and their verification</caption>
              <thead className="bg-slate-50 text-slate-700">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Address
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Name
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    State
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Since
                  </th>
                  {mayEdit && (
                    <th scope="col" className="px-3 py-2 font-medium">
                      Actions
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {list.data.addresses.map((a) => (
                  <tr key={a.sender_email} className="border-t border-slate-200">
                    <td className="px-3 py-2 text-slate-900">{a.sender_email}</td>
                    <td className="px-3 py-2">{a.sender_name ?? "—"}</td>
                    <td className="px-3 py-2">
                      <Badge tone={TONE[a.verification_status] ?? "neutral"}>{a.verification_status}</Badge>
                    </td>
                    <td className="px-3 py-2">
                      <DateTime iso={a.created_at} />
                    </td>
                    {mayEdit && (
                      <td className="px-3 py-2">
                        <div className="flex flex-wrap gap-2">
                          <Button
                            size="sm"
                            variant="outline"
                            aria-label={`Check status of ${a.sender_email}`}
                            disabled={check.isPending}
                            onClick={() =>
                              check.mutate(a.sender_email, {
                                onSuccess: (d) => setDone(`${d.sender_email} is ${d.verification_status}.`),
                              })
                            }
                          >
                            Check status
                          </Button>
                          {a.verification_status !== "verified" && (
                            <Button
                              size="sm"
                              variant="outline"
                              aria-label={`Resend the verification email to ${a.sender_email}`}
                              disabled={resend.isPending}
                              onClick={() =>
                                resend.mutate(a.sender_email, { onSuccess: (d) => setDone(d.message) })
                              }
                            >
                              Resend
                            </Button>
                          )}
                          <Button
                            size="sm"
                            variant="outline"
                            aria-label={`Remove ${a.sender_email}`}
                            onClick={() => setRemoving(a)}
                          >
                            Remove
                          </Button>
                        </div>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <EmptyState title="No single addresses">
            {mayEdit
              ? "Verify an address above to send from it without a domain of your own."
              : "An owner, admin or member of this project adds addresses here."}
          </EmptyState>
        ))}
      <Dialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={`Remove ${removing?.sender_email ?? ""}?`}
        description={
          <>
            Its verification and its sender profile are removed: it <strong>can no longer send</strong> until
            verified again.
          </>
        }
      >
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button
            variant="destructive"
            disabled={remove.isPending}
            onClick={() =>
              removing &&
              remove.mutate(removing.sender_email, {
                onSuccess: (d) => setDone(d.message),
                onSettled: () => setRemoving(null),
              })
            }
          >
            Remove address
          </Button>
        </div>
      </Dialog>
    </section>
  );
}
