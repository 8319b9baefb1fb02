// Response bodies the pages read (the admin OpenAPI document gives only their descriptions); field names are the
// API's, see apps/public-api/src/admin/admin.routes.ts, accounts/accounts.routes.ts and audit/audit.routes.ts.

import type { paths } from "./schema";

export type Role = "owner" | "admin" | "member" | "viewer";

export interface Membership {
  project_id: string;
  project_name: string;
  role: Role;
}

export interface User {
  id: string;
  email: string;
  name: string | null;
  platform_owner: boolean;
}

export interface Session {
  user: User;
  csrf_token: string;
  memberships: Membership[];
}

export interface Project {
  id: string;
  name: string;
  webhook_url: string | null;
  webhook_url_dev: string | null;
  inbound_webhook_url: string | null;
  inbound_webhook_url_dev: string | null;
  default_timezone: string | null;
  on_send_unknown: "resend" | "fail";
  postal_address: string | null;
  webhook_failing_since: string | null;
  webhook_dev_failing_since: string | null;
  total_sent: number;
  created_at: string;
}

export interface ApiKeyView {
  key: string;
  prefix: string;
  created_at: string;
}

export interface Keys {
  live: ApiKeyView | null;
  test: ApiKeyView | null;
}

export interface Member {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  since: string;
}

export interface AuditEvent {
  id: string;
  action: string;
  route: string | null;
  status: number | null;
  actor: { type: string; email: string | null };
  ip: string | null;
  user_agent: string | null;
  detail: unknown;
  created_at: string;
}

export interface Template {
  template_id: string;
  template_internal_id: string;
  name: string;
  subject: string;
  html: string;
  text: string | null;
  updated_at: string;
}

/**
 * What each role may do, as the API enforces it (accounts/admin-access.ts: keys, members and settings need admin,
 * other changes member, reads viewer); the UI only mirrors it to disable controls and say why.
 */
export const canAdminister = (role: Role | undefined) => role === "owner" || role === "admin";
export const canEdit = (role: Role | undefined) => canAdminister(role) || role === "member";

/** The statuses the API's activity filter takes (its OpenAPI `status` parameter, generated into schema.d.ts). */
export type ActivityStatus = NonNullable<
  NonNullable<paths["/admin/projects/{projectId}/activities"]["get"]["parameters"]["query"]>["status"]
>[number];
/**
 * The filter's choices, in the lifecycle's order. Typed as a record over ActivityStatus, so a status the API adds
 * or drops fails the typecheck here instead of going missing from the filter.
 */
const STATUS_ORDER: Record<ActivityStatus, number> = {
  scheduled: 0,
  queued: 1,
  sending: 2,
  sent: 3,
  delivered: 4,
  opened: 5,
  clicked: 6,
  bounced: 7,
  complained: 8,
  failed: 9,
  cancelled: 10,
};
export const ACTIVITY_STATUSES = (Object.keys(STATUS_ORDER) as ActivityStatus[]).sort(
  (a, b) => STATUS_ORDER[a] - STATUS_ORDER[b],
);

export interface Activity {
  id: string;
  email_id: string;
  recipient: string;
  subject: string;
  from: string;
  status: ActivityStatus;
  email_type: string;
  source: string | null;
  campaign_id: string | null;
  batch_id: string | null;
  created_at: string;
  sent_at: string | null;
  delivered_at: string | null;
  opened_at: string | null;
  clicked_at: string | null;
  bounced_at: string | null;
  failure_reason: string | null;
}

export interface ActivityPage {
  activities: Activity[];
  next_cursor: string | null;
}

export interface ActivityDetail {
  activity: Pick<
    Activity,
    | "id"
    | "email_id"
    | "recipient"
    | "from"
    | "subject"
    | "status"
    | "email_type"
    | "source"
    | "campaign_id"
    | "failure_reason"
    | "created_at"
  > & {
    is_test: boolean;
    provider_message_id: string | null;
    html: string;
    text: string | null;
    data: unknown;
  };
  events: { type: string; occurred_at: string; payload: unknown }[];
  webhook_deliveries: {
    id: string;
    event: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    url: string | null;
    created_at: string;
  }[];
}

/** A pending invitation (GET /admin/projects/:id/invitations; invitations/invitations.routes.ts). */
export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invited_by: { email: string; name: string | null } | null;
  created_at: string;
  expires_at: string;
  status: "pending" | "accepted" | "revoked" | "expired";
}

/** An invitation made or sent again: emailed, or (no usable sender) its link for the inviter to pass on. */
export type InvitationSent = { invitation: Invitation } & (
  | { email_sent: true; email_id: string; activity_id: string }
  | { email_sent: false; email_problem: string; invite_url: string }
);

/** What an invitation's link shows its holder, signed in or not (GET /admin/invitations/:token). */
export interface InvitationLookup {
  invitation: {
    project_id: string;
    project_name: string;
    email: string;
    role: Role;
    invited_by: { email: string; name: string | null } | null;
    expires_at: string;
    status: Invitation["status"];
  };
  has_account: boolean;
  signed_in_as: string | null;
}

/** The template editor's test send: queued, or skipped (a suppressed address). */
export type TemplateTestSent =
  | { message: string; email_id: string; activity_id: string; mode: "test" | "live"; skipped?: undefined }
  | { message: string; skipped: true; recipient: string; suppression_reason: string };
