import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { AdminClientContext, ApiError, createAdminClient } from "./api/client";
import { createRouter } from "./routes";
import "./index.css";

const api = createAdminClient();
const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // a refusal (4xx) will not change by asking again; a network hiccup might
      retry: (count, err) => count < 2 && !(err instanceof ApiError && err.status >= 400 && err.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});
// A session that ended while a page was open (401 on any call): ask /auth/me again, which sends the page to sign-in.
queryClient.getQueryCache().subscribe((e) => {
  if (e.type === "updated" && e.query.queryKey[0] !== "session") {
    const err = e.query.state.error;
    if (err instanceof ApiError && err.status === 401)
      void queryClient.invalidateQueries({ queryKey: ["session"] });
  }
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <AdminClientContext.Provider value={api}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={createRouter()} />
      </QueryClientProvider>
    </AdminClientContext.Provider>
  </StrictMode>,
);
