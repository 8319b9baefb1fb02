import { lazy, Suspense, type ReactNode } from "react";
import { createBrowserRouter, Navigate, useRouteError } from "react-router";
import { RequireSession } from "./auth/require-session";
import { ErrorMessage, Loading } from "./ui/states";

// Every page is its own chunk (React.lazy): the first load carries the shell, the router and the client only.
const SignInPage = lazy(() => import("./auth/sign-in-page"));
const InvitePage = lazy(() => import("./auth/invite-page"));
const HomeRedirect = lazy(() => import("./projects/home-redirect"));
const ProjectLayout = lazy(() => import("./projects/project-layout"));
const OverviewPage = lazy(() => import("./overview/overview-page"));
const ActivityPage = lazy(() => import("./activity/activity-page"));
const ActivityDetailPage = lazy(() => import("./activity/activity-detail-page"));
const KeysPage = lazy(() => import("./keys/keys-page"));
const SettingsPage = lazy(() => import("./settings/settings-page"));
const TeamPage = lazy(() => import("./team/team-page"));
const AuditPage = lazy(() => import("./audit/audit-page"));
const TemplatesPage = lazy(() => import("./templates/templates-page"));
const TemplateEditorPage = lazy(() => import("./templates/template-editor-page"));
const WebhooksPage = lazy(() => import("./webhooks/webhooks-page"));
const DeliveryPage = lazy(() => import("./webhooks/delivery-page"));
const SuppressionsPage = lazy(() => import("./suppressions/suppressions-page"));
const DomainsPage = lazy(() => import("./domains/domains-page"));
const LeadsPage = lazy(() => import("./leads/leads-page"));
const LeadPage = lazy(() => import("./leads/lead-page"));
const SegmentsPage = lazy(() => import("./segments/segments-page"));
const SegmentBuilderPage = lazy(() => import("./segments/segment-builder-page"));

const page = (node: ReactNode) => <Suspense fallback={<Loading what="the page" />}>{node}</Suspense>;
const signedIn = (node: ReactNode) => page(<RequireSession>{node}</RequireSession>);

function RouteError() {
  const error = useRouteError();
  return (
    <main className="p-8">
      <h1 className="mb-4 text-xl font-semibold">This page failed</h1>
      <ErrorMessage error={error} />
    </main>
  );
}

export function createRouter() {
  return createBrowserRouter(
    [
      {
        errorElement: <RouteError />,
        children: [
          { path: "/sign-in", element: page(<SignInPage />) },
          // an invitation's link: its own page, reached without a session
          { path: "/invite/:token", element: page(<InvitePage />) },
          { path: "/", element: signedIn(<HomeRedirect />) },
          {
            path: "/p/:projectId",
            element: signedIn(<ProjectLayout />),
            children: [
              { index: true, element: <Navigate to="overview" replace /> },
              { path: "overview", element: <OverviewPage /> },
              { path: "activity", element: <ActivityPage /> },
              { path: "activity/:activityId", element: <ActivityDetailPage /> },
              { path: "webhooks", element: <WebhooksPage /> },
              { path: "webhooks/:deliveryId", element: <DeliveryPage /> },
              { path: "leads", element: <LeadsPage /> },
              { path: "leads/:leadId", element: <LeadPage /> },
              { path: "segments", element: <SegmentsPage /> },
              { path: "segments/new", element: <SegmentBuilderPage /> },
              { path: "suppressions", element: <SuppressionsPage /> },
              { path: "domains", element: <DomainsPage /> },
              { path: "keys", element: <KeysPage /> },
              { path: "settings", element: <SettingsPage /> },
              { path: "team", element: <TeamPage /> },
              { path: "audit", element: <AuditPage /> },
              { path: "templates", element: <TemplatesPage /> },
              { path: "templates/new", element: <TemplateEditorPage /> },
              { path: "templates/:templateId", element: <TemplateEditorPage /> },
            ],
          },
          { path: "*", element: <Navigate to="/" replace /> },
        ],
      },
    ],
    { basename: import.meta.env.BASE_URL.replace(/\/$/, "") },
  );
}
