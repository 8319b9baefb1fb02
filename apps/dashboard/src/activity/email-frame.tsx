import { useMemo, useState } from "react";
import { Button } from "../ui/button";
import { countRemoteResources, sandboxEmail } from "./sandbox-email";

/**
 * The email as sent, in an iframe with every sandbox restriction (`sandbox=""`: no scripts, an opaque origin that
 * cannot reach the dashboard's session). Remote images, backgrounds, stylesheets and fonts stay blocked until the
 * user presses "Load remote content": opening an email here must not count as the recipient's open, nor tell a
 * third party that someone looked.
 */
export function EmailFrame({ html, title }: { html: string; title: string }) {
  const [allowRemote, setAllowRemote] = useState(false);
  const remote = useMemo(() => countRemoteResources(html), [html]);
  const srcDoc = useMemo(() => sandboxEmail(html, { allowRemote }), [html, allowRemote]);
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3 text-sm text-slate-700">
        {allowRemote ? (
          <span role="status">Remote content is loaded.</span>
        ) : (
          <>
            <span>
              Remote content is blocked
              {remote ? ` (${remote} remote ${remote === 1 ? "resource" : "resources"} in this email)` : ""}.
            </span>
            <Button variant="outline" size="sm" onClick={() => setAllowRemote(true)}>
              Load remote content
            </Button>
          </>
        )}
      </div>
      <iframe
        title={title}
        sandbox=""
        srcDoc={srcDoc}
        className="h-[32rem] w-full rounded-md border border-slate-300 bg-white"
      />
    </div>
  );
}
