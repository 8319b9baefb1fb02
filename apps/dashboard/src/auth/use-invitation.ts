import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap, useAdminClient } from "../api/client";
import type { InvitationLookup, Session } from "../api/types";
import { sessionKey } from "./use-session";

/** The invitation a link names, read without a session (the token is the credential). */
export function useInvitation(token: string) {
  const api = useAdminClient();
  return useQuery({
    queryKey: ["invitation", token],
    queryFn: () =>
      unwrap<InvitationLookup>(api.GET("/admin/invitations/{token}", { params: { path: { token } } })),
    retry: false,
  });
}

/**
 * Accepts the invitation: a new user with a name and a password (the answer starts their session), or the
 * signed-in user with the invited address. Either way the session is then this one.
 */
export function useAcceptInvitation(token: string) {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { name?: string; password?: string }) =>
      unwrap<Session & { project_id: string }>(
        api.POST("/admin/invitations/{token}/accept", { params: { path: { token } }, body }),
      ),
    onSuccess: (session) => {
      api.setCsrfToken(session.csrf_token);
      qc.clear();
      qc.setQueryData(sessionKey, {
        user: session.user,
        csrf_token: session.csrf_token,
        memberships: session.memberships,
      });
    },
  });
}
