import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, unwrap, useAdminClient } from "../api/client";
import type { Session } from "../api/types";

export const sessionKey = ["session"] as const;

/** The signed-in user (GET /admin/auth/me); null when there is no session (401). */
export function useSession() {
  const api = useAdminClient();
  return useQuery({
    queryKey: sessionKey,
    queryFn: async (): Promise<Session | null> => {
      try {
        const me = await unwrap<Session & { user: Session["user"] | null }>(api.GET("/admin/auth/me"));
        if (!me.user) return null; // the admin token, not a person: the dashboard needs a user
        api.setCsrfToken(me.csrf_token);
        return me;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
    retry: false,
  });
}

export function useSignIn() {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) =>
      unwrap<Session>(api.POST("/admin/auth/sign-in", { body })),
    onSuccess: (session) => {
      api.setCsrfToken(session.csrf_token);
      qc.clear();
      qc.setQueryData(sessionKey, session);
    },
  });
}

export function useSignOut() {
  const api = useAdminClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap<unknown>(api.POST("/admin/auth/sign-out")),
    onSettled: () => {
      api.setCsrfToken(null);
      qc.clear();
      qc.setQueryData(sessionKey, null);
    },
  });
}
