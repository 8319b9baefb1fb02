import createClient, { type Client } from "openapi-fetch";
import { errorFromResponse } from "./errors.js";
import type { paths } from "./generated/schema.js";
import { resolveTransport, retryingFetch, type TransportOptions } from "./transport.js";
import type * as T from "./types.js";
import { randomUUID } from "./web-crypto.js";

export interface EmailServiceOptions extends TransportOptions {
  /** A project key: `sk_live_…` (or legacy `sk_proj_…`) sends live, `sk_test_…` in test mode. Server-side only. */
  apiKey: string;
  /** The service's base URL (the gateway), e.g. `https://mail.example.com`. */
  baseUrl: string;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** Per call. */
export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Per call of an endpoint that takes an `Idempotency-Key` (the sends, events). */
export interface IdempotentRequestOptions extends RequestOptions {
  /**
   * At most 128 characters. When omitted, the SDK makes one per call (a UUID), so the retries of that call are
   * recognised by the service and never send (or store) twice. Pass your own to make retries across calls safe.
   */
  idempotencyKey?: string;
}

type Fetched = { data?: unknown; error?: unknown; response: Response };

/** The answer's data, or the typed error of a non-2xx answer. */
async function unwrap<R extends Fetched>(pending: Promise<R>): Promise<NonNullable<R["data"]>> {
  const { data, error, response } = await pending;
  if (!response.ok) throw errorFromResponse(response.status, error, response.headers);
  return data as NonNullable<R["data"]>;
}

async function idempotent(o: IdempotentRequestOptions = {}) {
  return {
    ...(o.signal ? { signal: o.signal } : {}),
    headers: { ...o.headers, "Idempotency-Key": o.idempotencyKey ?? (await randomUUID()) },
  };
}

const plain = (o: RequestOptions = {}) => ({
  ...(o.signal ? { signal: o.signal } : {}),
  ...(o.headers ? { headers: o.headers } : {}),
});

/**
 * The public API. Every method resolves to the answer's JSON, typed from the OpenAPI document, or throws an
 * `EmailServiceError` subclass (see errors.ts).
 *
 * ```ts
 * const mail = new EmailService({ apiKey: process.env.EMAIL_KEY!, baseUrl: "https://mail.example.com" });
 * const sent = await mail.emails.send({ recipient_email: "ada@example.com", sender_email: "hi@shop.example",
 *   subject: "Welcome", html_body: "<p>Hello</p>" });
 * ```
 */
export class EmailService {
  /** The openapi-fetch client underneath (same auth and retries, no error mapping): any route of the document. */
  readonly raw: Client<paths>;
  readonly emails: Emails;
  readonly scheduledSends: ScheduledSends;
  readonly events: Events;
  readonly leads: Leads;
  readonly domains: Domains;
  readonly threads: Threads;

  constructor(options: EmailServiceOptions) {
    if (!options?.apiKey) throw new TypeError("EmailService: `apiKey` is required");
    if (!options.baseUrl) throw new TypeError("EmailService: `baseUrl` is required");
    const transport = resolveTransport(options);
    this.raw = createClient<paths>({
      baseUrl: options.baseUrl,
      fetch: retryingFetch(transport),
      headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
    });
    this.emails = new Emails(this.raw);
    this.scheduledSends = new ScheduledSends(this.raw);
    this.events = new Events(this.raw);
    this.leads = new Leads(this.raw);
    this.domains = new Domains(this.raw);
    this.threads = new Threads(this.raw);
  }
}

class Emails {
  constructor(private readonly api: Client<paths>) {}

  /** POST /v1/send-email: one email to up to 50 recipients (or `dry_run`). */
  async send(body: T.SendEmailRequest, o?: IdempotentRequestOptions): Promise<T.SendEmailResponse> {
    return unwrap(this.api.POST("/v1/send-email", { body, ...(await idempotent(o)) }));
  }

  /** POST /v1/send-template-email: one email from a stored template. */
  async sendTemplate(
    body: T.SendTemplateEmailRequest,
    o?: IdempotentRequestOptions,
  ): Promise<T.SendTemplateEmailResponse> {
    return unwrap(this.api.POST("/v1/send-template-email", { body, ...(await idempotent(o)) }));
  }

  /** POST /v1/send-batch: up to 12,500 recipients, each with its own `data`; optionally `scheduled_at`. */
  async sendBatch(body: T.SendBatchRequest, o?: IdempotentRequestOptions): Promise<T.SendBatchResponse> {
    return unwrap(this.api.POST("/v1/send-batch", { body, ...(await idempotent(o)) }));
  }
}

class ScheduledSends {
  constructor(private readonly api: Client<paths>) {}

  /** GET /v1/scheduled-sends/:id */
  get(id: string, o?: RequestOptions): Promise<T.ScheduledSend> {
    return unwrap(this.api.GET("/v1/scheduled-sends/{id}", { params: { path: { id } }, ...plain(o) }));
  }

  /** DELETE /v1/scheduled-sends/:id: cancel before it goes out (`ConflictError` once handed over). */
  cancel(id: string, o?: RequestOptions): Promise<T.CancelScheduledSendResponse> {
    return unwrap(this.api.DELETE("/v1/scheduled-sends/{id}", { params: { path: { id } }, ...plain(o) }));
  }
}

class Events {
  constructor(private readonly api: Client<paths>) {}

  /** POST /v1/events: one custom event; an unknown email gets an empty lead. */
  async track(body: T.TrackEventRequest, o?: IdempotentRequestOptions): Promise<T.TrackEventResponse> {
    return unwrap(this.api.POST("/v1/events", { body, ...(await idempotent(o)) }));
  }

  /** POST /v1/events/bulk: 1 to 1,000 events, all or nothing. */
  async trackBulk(
    events: T.TrackEventsBulkRequest["events"],
    o?: IdempotentRequestOptions,
  ): Promise<T.TrackEventsBulkResponse> {
    return unwrap(this.api.POST("/v1/events/bulk", { body: { events }, ...(await idempotent(o)) }));
  }

  /** GET /v1/events: newest first, filtered by `email`, `event`, `since`, `until`; `per_page` at most 200. */
  list(query: T.ListEventsQuery = {}, o?: RequestOptions): Promise<T.ListEventsResponse> {
    return unwrap(this.api.GET("/v1/events", { params: { query }, ...plain(o) }));
  }
}

class LeadTags {
  constructor(private readonly api: Client<paths>) {}

  /** GET /v1/leads/:email/tags */
  list(email: string, o?: RequestOptions): Promise<T.LeadTagsResponse> {
    return unwrap(this.api.GET("/v1/leads/{email}/tags", { params: { path: { email } }, ...plain(o) }));
  }

  /** POST /v1/leads/:email/tags: adds (idempotent). */
  add(email: string, tags: string[], o?: RequestOptions): Promise<T.LeadTagsResponse> {
    return unwrap(
      this.api.POST("/v1/leads/{email}/tags", { params: { path: { email } }, body: { tags }, ...plain(o) }),
    );
  }

  /** DELETE /v1/leads/:email/tags: removes the listed tags. */
  remove(email: string, tags: string[], o?: RequestOptions): Promise<T.LeadTagsResponse> {
    return unwrap(
      this.api.DELETE("/v1/leads/{email}/tags", { params: { path: { email } }, body: { tags }, ...plain(o) }),
    );
  }
}

class LeadAttributes {
  constructor(private readonly api: Client<paths>) {}

  /** GET /v1/leads/:email/attributes */
  get(email: string, o?: RequestOptions): Promise<T.LeadAttributesResponse> {
    return unwrap(this.api.GET("/v1/leads/{email}/attributes", { params: { path: { email } }, ...plain(o) }));
  }

  /** POST /v1/leads/:email/attributes: merges; a name set to null is removed. */
  set(
    email: string,
    attributes: Record<string, unknown>,
    o?: RequestOptions,
  ): Promise<T.LeadAttributesResponse> {
    return unwrap(
      this.api.POST("/v1/leads/{email}/attributes", {
        params: { path: { email } },
        body: { attributes },
        ...plain(o),
      }),
    );
  }
}

class Leads {
  readonly tags: LeadTags;
  readonly attributes: LeadAttributes;

  constructor(private readonly api: Client<paths>) {
    this.tags = new LeadTags(api);
    this.attributes = new LeadAttributes(api);
  }

  /** POST /v1/leads with one lead: creates it (`created: true`) or updates the lead of that email. */
  upsert(lead: T.LeadInput, o?: RequestOptions): Promise<T.UpsertLeadResponse> {
    return unwrap(this.api.POST("/v1/leads", { body: lead, ...plain(o) })) as Promise<T.UpsertLeadResponse>;
  }

  /** POST /v1/leads with `{ leads }`: 1 to 1,000, one result each (a bad item does not sink the others). */
  upsertMany(leads: T.LeadInput[], o?: RequestOptions): Promise<T.UpsertLeadsResponse> {
    return unwrap(
      this.api.POST("/v1/leads", { body: { leads }, ...plain(o) }),
    ) as Promise<T.UpsertLeadsResponse>;
  }

  /** GET /v1/leads: newest first; filters `email`, `tag`, `segment`, `subscription`, `created_since/until`. */
  list(query: T.ListLeadsQuery = {}, o?: RequestOptions): Promise<T.ListLeadsResponse> {
    return unwrap(this.api.GET("/v1/leads", { params: { query }, ...plain(o) }));
  }

  /** GET /v1/leads/:id (id or email): the lead with its segments. */
  get(idOrEmail: string, o?: RequestOptions): Promise<T.LeadWithSegments> {
    return unwrap(this.api.GET("/v1/leads/{id}", { params: { path: { id: idOrEmail } }, ...plain(o) })).then(
      (a) => a.lead,
    );
  }

  /** PUT /v1/leads/:id: given fields replace (attributes and tags as a whole). */
  update(idOrEmail: string, body: T.UpdateLeadRequest, o?: RequestOptions): Promise<T.Lead> {
    return unwrap(
      this.api.PUT("/v1/leads/{id}", { params: { path: { id: idOrEmail } }, body, ...plain(o) }),
    ).then((a) => a.lead);
  }

  /** DELETE /v1/leads/:id: the lead, its events and segment memberships. */
  delete(idOrEmail: string, o?: RequestOptions): Promise<T.DeleteLeadResponse> {
    return unwrap(this.api.DELETE("/v1/leads/{id}", { params: { path: { id: idOrEmail } }, ...plain(o) }));
  }

  /** POST /v1/leads/:id/segments: adds the lead to static segments. */
  addToSegments(
    idOrEmail: string,
    segmentIds: string[],
    o?: RequestOptions,
  ): Promise<T.LeadSegmentsResponse> {
    return unwrap(
      this.api.POST("/v1/leads/{id}/segments", {
        params: { path: { id: idOrEmail } },
        body: { segment_ids: segmentIds },
        ...plain(o),
      }),
    );
  }

  /** DELETE /v1/leads/:id/segments/:segmentId: removes the lead from a static segment. */
  removeFromSegment(
    idOrEmail: string,
    segmentId: string,
    o?: RequestOptions,
  ): Promise<T.LeadSegmentsResponse> {
    return unwrap(
      this.api.DELETE("/v1/leads/{id}/segments/{segmentId}", {
        params: { path: { id: idOrEmail, segmentId } },
        ...plain(o),
      }),
    );
  }
}

class Domains {
  constructor(private readonly api: Client<paths>) {}

  /** POST /domains/register: the seven DNS records to publish. */
  register(body: T.RegisterDomainRequest, o?: RequestOptions): Promise<T.RegisterDomainResponse> {
    return unwrap(this.api.POST("/domains/register", { body, ...plain(o) }));
  }

  /** GET /domains?domain= */
  get(domain: string, o?: RequestOptions): Promise<T.DomainResponse> {
    return unwrap(this.api.GET("/domains", { params: { query: { domain } }, ...plain(o) }));
  }

  /** GET /domains/:domain/dns-records (stored state, no provider call). */
  dnsRecords(domain: string, o?: RequestOptions): Promise<T.DnsRecordsResponse> {
    return unwrap(
      this.api.GET("/domains/{domain}/dns-records", { params: { path: { domain } }, ...plain(o) }),
    );
  }

  /** POST /domains/:domain/verify: asks the provider, updates the stored state, reports `can_send`. */
  verify(domain: string, o?: RequestOptions): Promise<T.VerifyDomainResponse> {
    return unwrap(this.api.POST("/domains/{domain}/verify", { params: { path: { domain } }, ...plain(o) }));
  }

  /** GET /domains/:domain/status (stored state). */
  status(domain: string, o?: RequestOptions): Promise<T.DomainStatusResponse> {
    return unwrap(this.api.GET("/domains/{domain}/status", { params: { path: { domain } }, ...plain(o) }));
  }

  /** DELETE /domains/:domain */
  delete(domain: string, o?: RequestOptions): Promise<T.DeleteDomainResponse> {
    return unwrap(this.api.DELETE("/domains/{domain}", { params: { path: { domain } }, ...plain(o) }));
  }

  /** PUT /domains/:domain/sender: the sender profile (`sender_email` must be on the domain). */
  updateSender(
    domain: string,
    body: T.UpdateSenderRequest,
    o?: RequestOptions,
  ): Promise<T.UpdateSenderResponse> {
    return unwrap(
      this.api.PUT("/domains/{domain}/sender", { params: { path: { domain } }, body, ...plain(o) }),
    );
  }

  /** POST /domains/verify-email: verify one address by a link the provider mails to it. */
  verifyEmail(body: T.VerifyEmailRequest, o?: RequestOptions): Promise<T.VerifyEmailResponse> {
    return unwrap(this.api.POST("/domains/verify-email", { body, ...plain(o) }));
  }

  /** GET /domains/verify-email/status?email= (checked live against the provider). */
  verifyEmailStatus(email: string, o?: RequestOptions): Promise<T.VerifyEmailStatusResponse> {
    return unwrap(
      this.api.GET("/domains/verify-email/status", { params: { query: { email } }, ...plain(o) }),
    );
  }

  /** POST /domains/verify-email/resend: mails the verification link again. */
  resendVerifyEmail(senderEmail: string, o?: RequestOptions): Promise<T.ResendVerifyEmailResponse> {
    return unwrap(
      this.api.POST("/domains/verify-email/resend", { body: { sender_email: senderEmail }, ...plain(o) }),
    );
  }

  /** DELETE /domains/verify-email?email=: removes the identity and its sender profile. */
  deleteVerifyEmail(email: string, o?: RequestOptions): Promise<T.DeleteVerifyEmailResponse> {
    return unwrap(this.api.DELETE("/domains/verify-email", { params: { query: { email } }, ...plain(o) }));
  }
}

class Threads {
  constructor(private readonly api: Client<paths>) {}

  /** GET /v1/threads: reply threads, newest activity first. */
  list(query: T.ListThreadsQuery = {}, o?: RequestOptions): Promise<T.ListThreadsResponse> {
    return unwrap(this.api.GET("/v1/threads", { params: { query }, ...plain(o) }));
  }

  /** GET /v1/threads/:id: the original send and every reply, oldest first. */
  get(id: string, o?: RequestOptions): Promise<T.ThreadResponse> {
    return unwrap(this.api.GET("/v1/threads/{id}", { params: { path: { id } }, ...plain(o) }));
  }

  /** GET /v1/inbound/:id/raw: a received reply exactly as it arrived (RFC 5322 MIME text). */
  async raw(inboundId: string, o?: RequestOptions): Promise<string> {
    const r = await this.api.GET("/v1/inbound/{id}/raw", {
      params: { path: { id: inboundId } },
      parseAs: "text",
      ...plain(o),
    });
    if (!r.response.ok) throw errorFromResponse(r.response.status, r.error, r.response.headers);
    return r.data as string;
  }
}
