import { Link } from "react-router";
import { Badge } from "../ui/badge";
import { DateTime } from "../ui/datetime";
import { ErrorMessage, Loading } from "../ui/states";
import { type Endpoint, useEndpoints } from "./use-webhooks";

const LABEL: Record<Endpoint["setting"], string> = {
  webhook_url: "Email events, live",
  webhook_url_dev: "Email events, test",
  inbound_webhook_url: "Inbound replies, live",
  inbound_webhook_url_dev: "Inbound replies, test",
};

/** Each of the project's four receiver URLs and whether it is failing, in plain words. */
export function Receivers({ projectId }: { projectId: string }) {
  const endpoints = useEndpoints(projectId);
  return (
    <section aria-labelledby="receivers" className="mb-8">
      <h2 id="receivers" className="mb-3 text-lg font-semibold text-slate-900">
        Receivers
      </h2>
      {endpoints.isPending && <Loading what="the receivers" />}
      <ErrorMessage error={endpoints.error} title="Could not load the receivers" />
      {endpoints.data && (
        <ul className="grid gap-3 md:grid-cols-2">
          {endpoints.data.endpoints.map((e) => (
            <li
              key={e.setting}
              data-testid={`receiver-${e.setting}`}
              className="space-y-1 rounded-lg border border-slate-200 bg-white p-4"
            >
              <div className="flex items-center justify-between gap-2">
                <span className="font-medium text-slate-900">{LABEL[e.setting]}</span>
                {!e.url ? (
                  <Badge>not set</Badge>
                ) : e.failing_since ? (
                  <Badge tone="red">failing</Badge>
                ) : (
                  <Badge tone="green">healthy</Badge>
                )}
              </div>
              <p className="text-xs break-all text-slate-700">
                <code>{e.setting}</code>: {e.url ?? "none"}
              </p>
              <p className="text-sm text-slate-800">
                {!e.url ? (
                  <>
                    Nothing is sent.{" "}
                    <Link className="text-blue-800 underline" to={`/p/${projectId}/settings`}>
                      Set a URL in Settings
                    </Link>{" "}
                    to receive these.
                  </>
                ) : e.failing_since ? (
                  <>
                    Failing since <DateTime iso={e.failing_since} />: new deliveries wait while the receiver
                    is tried one at a time; they go out as soon as it answers 2xx again.
                  </>
                ) : (
                  "Answering: deliveries go out as they happen."
                )}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
