import type { z } from "zod";
import { listAuditQuery } from "../audit/audit.routes";
import { acceptInvitationSchema, inviteSchema } from "../invitations/invitations.routes";
import { createUserSchema, putMemberSchema, setPasswordSchema, signInSchema } from "./accounts.routes";
import { type Ok } from "../docs/openapi-parts";

type Json = (schema: z.ZodType) => unknown;

const id = (name: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
});
const csrf =
  "a signed-in browser sends x-csrf-token (from sign-in or /auth/me) and its Origin with every change";

/** Accounts, sessions, members and the audit log of the admin API (issue 45), for adminOpenApi. */
export function accountPaths(json: Json, ok: Ok) {
  return {
    "/admin/auth/sign-in": {
      post: {
        summary: "Sign in with email and password: sets the HttpOnly, SameSite=Strict session cookie",
        security: [],
        requestBody: json(signInSchema),
        responses: {
          200: ok("user, csrf_token (send it as x-csrf-token with every change), memberships"),
          401: ok("Wrong email or password (the same words whether or not the email exists)"),
          429: ok("too many failed sign-ins for the account or the address: try again later"),
        },
      },
    },
    "/admin/auth/sign-out": {
      post: { summary: `End this browser's session (${csrf})`, responses: { 200: ok("signed out") } },
    },
    "/admin/auth/sign-out-everywhere": {
      post: { summary: "End every session of the signed-in user", responses: { 200: ok("sessions_ended") } },
    },
    "/admin/auth/me": {
      get: {
        summary: "The signed-in user, their CSRF token and their projects with their roles",
        responses: {
          200: ok("user (null for the admin token), csrf_token, memberships"),
          401: ok("not signed in"),
        },
      },
    },
    "/admin/users": {
      post: {
        summary: "Create a user (platform owners and the admin token); `pnpm admin users create` calls it",
        requestBody: json(createUserSchema),
        responses: {
          201: ok("user"),
          400: ok("invalid email or password"),
          403: ok("not a platform owner"),
          409: ok("email taken"),
        },
      },
    },
    "/admin/users/password": {
      put: {
        summary: "Set a user's password (platform owners and the admin token); every session of theirs ends",
        requestBody: json(setPasswordSchema),
        responses: {
          200: ok("user, sessions_ended"),
          403: ok("not a platform owner"),
          404: ok("no such user"),
        },
      },
    },
    "/admin/projects/{projectId}/members": {
      parameters: [id("projectId")],
      get: { summary: "The project's members and their roles", responses: { 200: ok("members") } },
      put: {
        summary:
          "Add a user to the project or change their role (admins; only an owner grants or removes owner)",
        requestBody: json(putMemberSchema),
        responses: {
          200: ok("member"),
          403: ok("the role needs an owner"),
          404: ok("no such user: invite them"),
          409: ok("the project would lose its last owner"),
        },
      },
    },
    "/admin/projects/{projectId}/members/{userId}": {
      parameters: [id("projectId"), id("userId")],
      delete: {
        summary: "Remove a member (admins; an owner only by an owner; never the last owner)",
        responses: { 200: ok("removed"), 404: ok("not a member"), 409: ok("the last owner") },
      },
    },
    "/admin/projects/{projectId}/invitations": {
      parameters: [id("projectId")],
      get: {
        summary: "The project's pending invitations (neither accepted, revoked nor expired), newest first",
        responses: { 200: ok("invitations") },
      },
      post: {
        summary:
          "Invite an address with a role (admins; an owner invitation only by an owner): emailed from " +
          "DASHBOARD_INVITE_FROM through the send model; without a usable sender the answer carries the link",
        requestBody: json(inviteSchema),
        responses: {
          201: ok(
            "invitation, email_sent; email_id and activity_id when emailed, else email_problem and invite_url " +
              "(pass it on: it is shown only now)",
          ),
          403: ok("the role needs an owner"),
          409: ok("a member already, or a pending invitation exists"),
        },
      },
    },
    "/admin/projects/{projectId}/invitations/{invitationId}": {
      parameters: [id("projectId"), id("invitationId")],
      delete: {
        summary: "Revoke a pending invitation: its link stops working",
        responses: {
          200: ok("revoked"),
          404: ok("no such invitation"),
          409: ok("accepted or revoked already"),
        },
      },
    },
    "/admin/projects/{projectId}/invitations/{invitationId}/resend": {
      parameters: [id("projectId"), id("invitationId")],
      post: {
        summary: "Send the invitation again with a new link and a new expiry; the old link stops working",
        responses: {
          200: ok("as the invitation's creation"),
          404: ok("no such invitation"),
          409: ok("accepted or revoked already"),
        },
      },
    },
    "/admin/invitations/{token}": {
      parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
      get: {
        summary:
          "The invitation a link names (no session needed): project, role, who invited, expiry and status " +
          "(pending, accepted, revoked, expired), and whether the address has an account",
        security: [],
        responses: {
          200: ok("invitation, has_account, signed_in_as"),
          404: ok("no such invitation"),
          429: ok("too many unknown links from this address"),
        },
      },
    },
    "/admin/invitations/{token}/accept": {
      parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
      post: {
        summary:
          "Accept an invitation (no session needed; a browser's Origin must be the dashboard's): a new user " +
          "gives name and password and is signed in; an existing user accepts while signed in as the invited " +
          `address (${csrf})`,
        security: [],
        requestBody: json(acceptInvitationSchema),
        responses: {
          200: ok("project_id, user, csrf_token, memberships; a new user gets the session cookie"),
          400: ok("name or password missing or too short"),
          403: ok("signed in as another user, a foreign Origin, or a missing CSRF token"),
          404: ok("no such invitation"),
          409: ok("expired, revoked or used (invitation_status), or sign in first (sign_in_first)"),
          429: ok("too many unknown links from this address"),
        },
      },
    },
    "/admin/projects/{projectId}/audit-events": {
      parameters: [id("projectId")],
      get: {
        summary: "The project's audit log, newest first: who changed what, when and from where (read-only)",
        parameters: Object.keys(listAuditQuery.shape).map((name) => ({
          name,
          in: "query",
          required: false,
          schema: { type: "string" },
        })),
        responses: { 200: ok("events, next_before (the `before` of the next page, null on the last)") },
      },
    },
  };
}
