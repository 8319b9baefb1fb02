// `pnpm admin campaigns …`: what the spec's dashboard does with campaigns, over the admin API; `trigger` calls
// campaign-dispatcher's internal POST /trigger-campaign (spec 4.8).
import type { Command } from "commander";
import { type AdminTarget, call, resolveInternalToken, resolveTriggerUrl } from "./client";

interface Tools {
  target: () => AdminTarget;
  print: (value: unknown) => void;
  route: (parts: TemplateStringsArray, ...values: string[]) => string;
  query: (o: Record<string, string | undefined>) => string;
  readHtml: (o: { html?: string; htmlFile?: string }) => string | undefined;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const list = (values: string[] | undefined) => (values?.length ? values : undefined);
const num = (x: string | undefined) => (x === undefined ? undefined : Number(x));

/** The body options shared by create, preflight and update. */
function withBodyOptions(c: Command): Command {
  return c
    .option("--name <name>")
    .option(
      "--subject <subject>",
      "{{variable}}s from the lead: email, first_name, last_name, phone, attributes",
    )
    .option("--html <html>")
    .option("--html-file <path>")
    .option("--text <text>")
    .option("--template <templateId>", "a stored template instead of --html")
    .option("--sender <email>", "a verified sender whose domain is DKIM-verified")
    .option("--sender-name <name>")
    .option("--reply-to <email>", "the human Reply-To (default: the sender)")
    .option("--email-type <type>", "marketing (default) needs subscribed leads; transactional does not")
    .option("--all-subscribed", "every subscribed lead of the project")
    .option("--segment <segmentId>", "audience: members of this segment (repeatable)", collect)
    .option("--tag <tag>", "audience: leads with this tag (repeatable)", collect)
    .option("--lead <leadId>", "audience: this lead (repeatable)", collect)
    .option("--email <email>", "audience: the lead with this email (repeatable)", collect)
    .option("--exclude-segment <segmentId>", "leave out this segment's members (repeatable)", collect)
    .option("--exclude-tag <tag>", "leave out leads with this tag (repeatable)", collect)
    .option("--exclude-lead <leadId>", "leave out this lead (repeatable)", collect)
    .option("--exclude-email <email>", "leave out the lead with this email (repeatable)", collect)
    .option("--start-at <iso>", "not before this time (ISO 8601 with a zone)")
    .option("--batch-size <n>", "batch mode: this many recipients, then --batch-interval-hours of waiting")
    .option("--batch-interval-hours <h>")
    .option("--send-over-hours <h>", "spread the recipients evenly over this many hours");
}

type BodyOptions = Record<string, string | string[] | boolean | undefined>;

function bodyOf(o: BodyOptions, t: Tools) {
  const s = (k: string) => o[k] as string | undefined;
  const a = (k: string) => list(o[k] as string[] | undefined);
  const exclude = {
    segment_ids: a("excludeSegment"),
    tags: a("excludeTag"),
    lead_ids: a("excludeLead"),
    emails: a("excludeEmail"),
  };
  const audience = {
    all_subscribed: o.allSubscribed ? true : undefined,
    segment_ids: a("segment"),
    tags: a("tag"),
    lead_ids: a("lead"),
    emails: a("email"),
    exclude: Object.values(exclude).some(Boolean) ? exclude : undefined,
  };
  return {
    name: s("name"),
    subject: s("subject"),
    html: t.readHtml({ html: s("html"), htmlFile: s("htmlFile") }),
    text: s("text"),
    template_id: s("template"),
    sender_email: s("sender"),
    sender_name: s("senderName"),
    reply_to: s("replyTo"),
    email_type: s("emailType"),
    audience: Object.values(audience).some(Boolean) ? audience : undefined,
    start_at: s("startAt"),
    batch_size: num(s("batchSize")),
    batch_interval_hours: num(s("batchIntervalHours")),
    send_over_hours: num(s("sendOverHours")),
  };
}

export function registerCampaignCommands(program: Command, t: Tools): void {
  const { target, print, route } = t;
  const campaigns = program
    .command("campaigns")
    .description(
      "create and manage campaigns: pre-flight, pause, resume, cancel, duplicate, test send, trigger",
    );
  const base = (id: string) => route`/projects/${id}/campaigns`;
  const one = (id: string, cid: string) => route`/projects/${id}/campaigns/${cid}`;

  withBodyOptions(campaigns.command("create <projectId>"))
    .description("create a campaign (refused when the pre-flight check finds a blocking error)")
    .action(async (id: string, o: BodyOptions) =>
      print(await call(target(), "POST", base(id), bodyOf(o, t))),
    );
  withBodyOptions(campaigns.command("preflight <projectId> [campaignId]"))
    .description("the pre-flight check of a stored campaign, or of the options given")
    .action(async (id: string, cid: string | undefined, o: BodyOptions) =>
      print(
        cid
          ? await call(target(), "GET", `${one(id, cid)}/preflight`)
          : await call(target(), "POST", `${base(id)}/preflight`, bodyOf(o, t)),
      ),
    );
  withBodyOptions(campaigns.command("update <projectId> <campaignId>"))
    .description("change a campaign that has not started")
    .action(async (id: string, cid: string, o: BodyOptions) =>
      print(await call(target(), "PATCH", one(id, cid), bodyOf(o, t))),
    );
  campaigns
    .command("list <projectId>")
    .option("--status <status>")
    .action(async (id: string, o: { status?: string }) =>
      print(await call(target(), "GET", base(id) + t.query({ status: o.status }))),
    );
  campaigns
    .command("show <projectId> <campaignId>")
    .description("status and reason, currentBatch / totalBatches, progress and stats")
    .action(async (id: string, cid: string) => print(await call(target(), "GET", one(id, cid))));
  for (const action of ["pause", "resume", "cancel", "duplicate"])
    campaigns
      .command(`${action} <projectId> <campaignId>`)
      .action(async (id: string, cid: string) =>
        print(await call(target(), "POST", `${one(id, cid)}/${action}`)),
      );
  campaigns
    .command("test-send <projectId> <campaignId> <email>")
    .description("send the campaign to one address ([Test] subject; not in its recipients or stats)")
    .action(async (id: string, cid: string, email: string) =>
      print(await call(target(), "POST", `${one(id, cid)}/test-send`, { email })),
    );
  campaigns
    .command("recipients <projectId> <campaignId>")
    .option("--status <status>")
    .option("--after <recipientId>")
    .option("--limit <n>")
    .action(async (id: string, cid: string, o: Record<string, string | undefined>) =>
      print(await call(target(), "GET", `${one(id, cid)}/recipients` + t.query(o))),
    );
  campaigns
    .command("trigger <campaignId>")
    .description(
      "POST /trigger-campaign on campaign-dispatcher's internal port (CAMPAIGN_URL and INTERNAL_TOKEN, or .local/demo.json)",
    )
    .action(async (cid: string) => {
      const res = await fetch(`${resolveTriggerUrl()}/trigger-campaign`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "x-internal-token": resolveInternalToken() },
        body: JSON.stringify({ campaignId: cid }),
      });
      print(await res.json());
      if (!res.ok) process.exitCode = 1;
    });
  campaigns
    .command("warmup <projectId> <domain> <ramp>")
    .description(
      "a sending domain's warm-up ramp: campaign emails per day, e.g. 20000,50000 (`default` clears it)",
    )
    .action(async (id: string, domain: string, ramp: string) =>
      print(
        await call(target(), "PUT", route`/projects/${id}/warmups/${domain}`, {
          ramp: ramp === "default" ? null : ramp.split(",").map(Number),
        }),
      ),
    );
}
