// Request and answer types of the public API, named for users, all derived from the generated document types
// (src/generated/schema.d.ts), so a change of the document changes them.
import type { operations } from "./generated/schema.js";

export type { components, operations, paths } from "./generated/schema.js";

export type OperationId = keyof operations;

/** The JSON body an operation takes. */
export type RequestBodyOf<O extends OperationId> = operations[O] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

/** The JSON answer of an operation for one status (its success status by default). */
export type AnswerOf<O extends OperationId, S extends number = 200> = operations[O]["responses"] extends {
  [K in S]: { content: { "application/json": infer A } };
}
  ? A
  : never;

/** An operation's query parameters. */
export type QueryOf<O extends OperationId> = operations[O]["parameters"] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;

// The document types `recipient_email`, `cc` and `bcc` arrays as `unknown[]` and `template_internal_id` as
// `unknown` (their zod schemas preprocess the input, which JSON Schema cannot show). The SDK states what the
// service accepts; each narrowed type is still assignable to the generated one.
type Addresses = string | string[];

/** POST /v1/send-email (spec 4.1). */
export type SendEmailRequest = Omit<RequestBodyOf<"postV1SendEmail">, "recipient_email" | "cc" | "bcc"> & {
  /** One address, or up to 50. */
  recipient_email: Addresses;
  /** Up to 10. */
  cc?: Addresses | null;
  /** Up to 10. */
  bcc?: Addresses | null;
};
/** Accepted (`email_id`), skipped for a suppressed recipient (`skipped: true`), or a dry run (`dry_run: true`). */
export type SendEmailResponse = AnswerOf<"postV1SendEmail">;

/** POST /v1/send-template-email (spec 4.2): `template_id` or `template_internal_id`. */
export type SendTemplateEmailRequest = Omit<
  RequestBodyOf<"postV1SendTemplateEmail">,
  "template_internal_id"
> & {
  template_internal_id?: number | null;
};
export type SendTemplateEmailResponse = AnswerOf<"postV1SendTemplateEmail">;

/** POST /v1/send-batch (spec 4.3): up to 12,500 recipients. */
export type SendBatchRequest = RequestBodyOf<"postV1SendBatch">;
export type SendBatchResponse = AnswerOf<"postV1SendBatch">;

export type ScheduledSend = AnswerOf<"getV1ScheduledSendsId">;
export type CancelScheduledSendResponse = AnswerOf<"deleteV1ScheduledSendsId">;

/** POST /v1/events (spec 4.7). */
export type TrackEventRequest = RequestBodyOf<"postV1Events">;
export type TrackEventResponse = AnswerOf<"postV1Events", 201>;
export type TrackEventsBulkRequest = RequestBodyOf<"postV1EventsBulk">;
export type TrackEventsBulkResponse = AnswerOf<"postV1EventsBulk", 201>;
export type ListEventsQuery = QueryOf<"getV1Events">;
export type ListEventsResponse = AnswerOf<"getV1Events">;
export type EventRecord = ListEventsResponse["data"][number];

/** One lead to create or update (spec 4.6). */
export type LeadInput = Extract<RequestBodyOf<"postV1Leads">, { email: string }>;
export type UpsertLeadResponse =
  AnswerOf<"postV1Leads", 201> | Extract<AnswerOf<"postV1Leads">, { lead: unknown }>;
export type UpsertLeadsResponse = Extract<AnswerOf<"postV1Leads">, { results: unknown }>;
export type Lead = AnswerOf<"putV1LeadsId">["lead"];
export type LeadWithSegments = AnswerOf<"getV1LeadsId">["lead"];
export type ListLeadsQuery = QueryOf<"getV1Leads">;
export type ListLeadsResponse = AnswerOf<"getV1Leads">;
export type UpdateLeadRequest = RequestBodyOf<"putV1LeadsId">;
export type DeleteLeadResponse = AnswerOf<"deleteV1LeadsId">;
export type LeadSegmentsResponse = AnswerOf<"postV1LeadsIdSegments">;
export type LeadTagsResponse = AnswerOf<"getV1LeadsEmailTags">;
export type LeadAttributesResponse = AnswerOf<"getV1LeadsEmailAttributes">;

export type ListThreadsQuery = QueryOf<"getV1Threads">;
export type ListThreadsResponse = AnswerOf<"getV1Threads">;
export type ThreadResponse = AnswerOf<"getV1ThreadsId">;

/** /domains* (spec 4.10). */
export type RegisterDomainRequest = RequestBodyOf<"postDomainsRegister">;
export type RegisterDomainResponse = AnswerOf<"postDomainsRegister", 201>;
export type DomainResponse = AnswerOf<"getDomains">;
export type DnsRecordsResponse = AnswerOf<"getDomainsDomainDnsRecords">;
export type VerifyDomainResponse = AnswerOf<"postDomainsDomainVerify">;
export type DomainStatusResponse = AnswerOf<"getDomainsDomainStatus">;
export type DeleteDomainResponse = AnswerOf<"deleteDomainsDomain">;
export type UpdateSenderRequest = RequestBodyOf<"putDomainsDomainSender">;
export type UpdateSenderResponse = AnswerOf<"putDomainsDomainSender">;
export type VerifyEmailRequest = RequestBodyOf<"postDomainsVerifyEmail">;
export type VerifyEmailResponse = AnswerOf<"postDomainsVerifyEmail", 201>;
export type VerifyEmailStatusResponse = AnswerOf<"getDomainsVerifyEmailStatus">;
export type ResendVerifyEmailResponse = AnswerOf<"postDomainsVerifyEmailResend">;
export type DeleteVerifyEmailResponse = AnswerOf<"deleteDomainsVerifyEmail">;
