// Typed end to end: bodies are checked against the document's request schemas and answers narrow by their fields.
// `pnpm lint` (tsc) is what fails when these types break: an `@ts-expect-error` with no error is an error itself.
import { EmailService, type SendEmailResponse, type WebhookEvent } from "../src/index.js";

const mail = new EmailService({ apiKey: "sk_test_x", baseUrl: "http://127.0.0.1:9", maxRetries: 0 });

/** Never called: the calls exist for the type checker. */
export async function typeChecks(): Promise<void> {
  // @ts-expect-error html_body is required
  await mail.emails.send({ recipient_email: "a@x.com", sender_email: "b@x.com" });
  // @ts-expect-error recipient_email takes addresses, not numbers
  await mail.emails.send({ recipient_email: [1], sender_email: "b@x.com", html_body: "h" });
  // @ts-expect-error unknown field
  await mail.events.track({ email: "a@x.com", event: "e", nope: true });
  // @ts-expect-error subscription is an enum
  await mail.leads.list({ subscription: "maybe" });

  const sent: SendEmailResponse = await mail.emails.send({
    recipient_email: ["a@x.com", "c@x.com"],
    sender_email: "b@x.com",
    html_body: "h",
  });
  if ("email_id" in sent) sent.email_id satisfies string;
  else if ("skipped" in sent) sent.suppression_reason satisfies string;
  else sent.would_send.to satisfies string[];

  const tracked = await mail.events.track({ email: "a@x.com", event: "e" });
  tracked.created_lead satisfies boolean;
  const page = await mail.leads.list({ tag: "vip", per_page: 10 });
  page.data[0]?.tags satisfies string[] | undefined;
  (await mail.domains.status("x.example")).can_send satisfies boolean;
  (await mail.threads.get("t")).messages satisfies unknown[];
}

export function handle(event: WebhookEvent): string {
  switch (event.event) {
    case "email.bounced":
      return event.data.bounce.recipients.map((r) => r.email).join();
    case "email.inbound":
      return event.data.reply_text;
    case "email.clicked":
      return event.data.url ?? "";
    default:
      // @ts-expect-error only the bounced event has `bounce`
      return event.data.bounce;
  }
}

it("is checked by the type checker (see pnpm lint)", () => {
  expect(typeof typeChecks).toBe("function");
  expect(
    handle({ event: "email.clicked", is_test: false, created_at: "", data: { url: "u" } as never }),
  ).toBe("u");
});
