/**
 * `pnpm admin …`: the command line over the internal admin API (projects, keys, templates, senders, leads,
 * segments, events, campaigns, shops).
 * Run `pnpm admin --help` for the list.
 */
import fs from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { registerCampaignCommands } from "./campaigns";
import { call, resolveTarget } from "./client";
import { registerImportCommands } from "./imports";

/** A route with each interpolated value percent-encoded: an id like "../projects" stays one path segment. */
const route = (parts: TemplateStringsArray, ...values: string[]): string =>
  parts.reduce((out, part, i) => out + part + (i < values.length ? encodeURIComponent(values[i]!) : ""), "");

const program = new Command("admin").description(
  "Manage projects, keys, templates and senders of a running stack",
);
const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
const target = () => resolveTarget();

const projects = program.command("projects").description("create, list, show and update projects");
projects
  .command("create")
  .requiredOption("--name <name>")
  .option("--legacy-live-key", "issue the live key with the legacy sk_proj_ prefix")
  .action(async (o: { name: string; legacyLiveKey?: boolean }) =>
    print(
      await call(target(), "POST", "/projects", { name: o.name, legacy_live_key: Boolean(o.legacyLiveKey) }),
    ),
  );
projects.command("list").action(async () => print(await call(target(), "GET", "/projects")));
projects
  .command("show <projectId>")
  .action(async (id: string) => print(await call(target(), "GET", route`/projects/${id}`)));
projects
  .command("set <projectId>")
  .description(
    "set webhook URLs, default_timezone, on_send_unknown and the postal address (an empty string clears a value)",
  )
  .option("--name <name>")
  .option("--webhook-url <url>")
  .option("--webhook-url-dev <url>")
  .option("--inbound-webhook-url <url>")
  .option("--inbound-webhook-url-dev <url>")
  .option("--default-timezone <iana>")
  .option(
    "--on-send-unknown <resend|fail>",
    "a send the worker died holding, unanswered after the reconcile window: resend it or fail it (outcome_unknown)",
  )
  .option(
    "--auto-leads-subscribed <true|false>",
    "leads created by an event for an unknown email: subscribed (true) or left unknown, not opted in (false, default)",
  )
  .option(
    "--postal-address <address>",
    "printed in the footer of campaigns and marketing batches (required by campaigns)",
  )
  .action(async (id: string, o: Record<string, string | undefined>) => {
    const v = (x: string | undefined) => (x === undefined ? undefined : x === "" ? null : x);
    print(
      await call(target(), "PATCH", route`/projects/${id}`, {
        name: o.name,
        webhook_url: v(o.webhookUrl),
        webhook_url_dev: v(o.webhookUrlDev),
        inbound_webhook_url: v(o.inboundWebhookUrl),
        inbound_webhook_url_dev: v(o.inboundWebhookUrlDev),
        default_timezone: v(o.defaultTimezone),
        on_send_unknown: o.onSendUnknown,
        auto_leads_subscribed:
          o.autoLeadsSubscribed === undefined ? undefined : o.autoLeadsSubscribed === "true",
        postal_address: v(o.postalAddress),
      }),
    );
  });

const keys = program.command("keys").description("show or regenerate the live and test keys");
keys
  .command("show <projectId>")
  .action(async (id: string) => print(await call(target(), "GET", route`/projects/${id}/keys`)));
keys
  .command("regenerate <projectId> <mode>")
  .description("mode is live or test; the old key of that mode stops working at once")
  .action(async (id: string, mode: string) =>
    print(await call(target(), "POST", route`/projects/${id}/keys/${mode}/regenerate`)),
  );

const users = program
  .command("users")
  .description("dashboard accounts: create users, and give them a role in a project");
users
  .command("create")
  .description("create a user who signs in to the dashboard (--platform-owner: owner of every project, the first one)")
  .requiredOption("--email <email>")
  .requiredOption("--password <password>", "at least 12 characters")
  .option("--name <name>")
  .option("--platform-owner", "owner of every project")
  .action(async (o: { email: string; password: string; name?: string; platformOwner?: boolean }) =>
    print(
      await call(target(), "POST", "/users", {
        email: o.email,
        password: o.password,
        ...(o.name ? { name: o.name } : {}),
        platform_owner: Boolean(o.platformOwner),
      }),
    ),
  );
users
  .command("add <projectId> <email> <role>")
  .description("give an existing user a role in a project: owner, admin, member or viewer")
  .action(async (id: string, email: string, role: string) =>
    print(await call(target(), "PUT", route`/projects/${id}/members`, { email, role })),
  );

const templates = program.command("templates").description("create, update and list templates");
templates
  .command("list <projectId>")
  .action(async (id: string) => print(await call(target(), "GET", route`/projects/${id}/templates`)));
// `pnpm admin` runs inside tools/admin-cli; a relative path is read from where pnpm was started (INIT_CWD: the
// repository root for the README commands), not from that package folder.
const readHtml = (o: { html?: string; htmlFile?: string }) =>
  o.htmlFile
    ? fs.readFileSync(path.resolve(process.env.INIT_CWD ?? process.cwd(), o.htmlFile), "utf8")
    : o.html;
templates
  .command("create <projectId>")
  .requiredOption("--name <name>")
  .requiredOption("--subject <subject>")
  .option("--html <html>")
  .option("--html-file <path>")
  .option("--text <text>")
  .action(
    async (
      id: string,
      o: { name: string; subject: string; html?: string; htmlFile?: string; text?: string },
    ) =>
      print(
        await call(target(), "POST", route`/projects/${id}/templates`, {
          name: o.name,
          subject: o.subject,
          html: readHtml(o),
          text: o.text,
        }),
      ),
  );
templates
  .command("update <projectId> <templateId>")
  .option("--name <name>")
  .option("--subject <subject>")
  .option("--html <html>")
  .option("--html-file <path>")
  .option("--text <text>")
  .action(
    async (
      id: string,
      tid: string,
      o: { name?: string; subject?: string; html?: string; htmlFile?: string; text?: string },
    ) =>
      print(
        await call(target(), "PUT", route`/projects/${id}/templates/${tid}`, {
          name: o.name,
          subject: o.subject,
          html: readHtml(o),
          text: o.text,
        }),
      ),
  );

const webhooks = program.command("webhooks").description("client webhook deliveries");
webhooks
  .command("list <projectId>")
  .option("--status <status>", "pending | succeeded | failed | exhausted | skipped")
  .action(async (id: string, o: { status?: string }) =>
    print(
      await call(
        target(),
        "GET",
        route`/webhook-deliveries?project_id=${id}` + (o.status ? route`&status=${o.status}` : ""),
      ),
    ),
  );
webhooks
  .command("redeliver <deliveryId>")
  .description("send a stored delivery again (for example one that exhausted its attempts)")
  .action(async (id: string) =>
    print(await call(target(), "POST", route`/webhook-deliveries/${id}/redeliver`)),
  );

/** `?a=1&b=2` of the options given (undefined ones left out). */
const query = (o: Record<string, string | undefined>): string => {
  const q = new URLSearchParams(Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined));
  return q.size ? `?${q.toString()}` : "";
};

const leads = program.command("leads").description("list a project's leads");
leads
  .command("list <projectId>")
  .option("--email <email>")
  .option("--tag <tag>")
  .option("--segment <segmentId>")
  .option("--subscription <state>", "unknown | subscribed | unsubscribed")
  .option("--page <n>")
  .option("--per-page <n>", "at most 200")
  .action(async (id: string, o: Record<string, string | undefined>) =>
    print(
      await call(
        target(),
        "GET",
        route`/projects/${id}/leads` +
          query({
            email: o.email,
            tag: o.tag,
            segment: o.segment,
            subscription: o.subscription,
            page: o.page,
            per_page: o.perPage,
          }),
      ),
    ),
  );

const segments = program.command("segments").description("create, list, show and delete segments");
segments
  .command("list <projectId>")
  .description("every segment with its live member count")
  .action(async (id: string) => print(await call(target(), "GET", route`/projects/${id}/segments`)));
segments
  .command("show <projectId> <segmentId>")
  .action(async (id: string, sid: string) =>
    print(await call(target(), "GET", route`/projects/${id}/segments/${sid}`)),
  );
segments
  .command("create <projectId>")
  .requiredOption("--name <name>")
  .option(
    "--filter <json>",
    'a dynamic segment\'s filter, e.g. \'{"all":[{"tag":"vip"},{"event":"purchase","min_count":2,"within_days":30}]}\'',
  )
  .action(async (id: string, o: { name: string; filter?: string }) =>
    print(
      await call(target(), "POST", route`/projects/${id}/segments`, {
        name: o.name,
        type: o.filter ? "dynamic" : "static",
        ...(o.filter ? { filter: JSON.parse(o.filter) as unknown } : {}),
      }),
    ),
  );
segments
  .command("delete <projectId> <segmentId>")
  .action(async (id: string, sid: string) =>
    print(await call(target(), "DELETE", route`/projects/${id}/segments/${sid}`)),
  );

const events = program.command("events").description("list a project's custom events");
events
  .command("list <projectId>")
  .option("--email <email>")
  .option("--event <name>")
  .option("--since <iso>")
  .option("--until <iso>")
  .option("--page <n>")
  .option("--per-page <n>", "at most 200")
  .action(async (id: string, o: Record<string, string | undefined>) =>
    print(
      await call(
        target(),
        "GET",
        route`/projects/${id}/events` +
          query({
            email: o.email,
            event: o.event,
            since: o.since,
            until: o.until,
            page: o.page,
            per_page: o.perPage,
          }),
      ),
    ),
  );

const shops = program
  .command("shops")
  .description(
    "connect shops (e-commerce webhooks), set attribution and abandoned-cart steps, rotate secrets",
  );
const shopSettings = (o: Record<string, string | undefined>) => {
  const v = (x: string | undefined) => (x === undefined ? undefined : x === "" ? null : x);
  const n = (x: string | undefined) => (x === undefined ? undefined : Number(x));
  return {
    duplicate_answer: o.duplicateAnswer,
    click_window_hours: n(o.clickWindowHours),
    open_window_hours: n(o.openWindowHours),
    abandoned_steps_minutes:
      o.abandonedSteps === undefined
        ? undefined
        : o.abandonedSteps === ""
          ? []
          : o.abandonedSteps.split(",").map(Number),
    abandoned_template_id: v(o.abandonedTemplate),
    abandoned_from_email: v(o.abandonedFrom),
    abandoned_from_name: v(o.abandonedFromName),
  };
};
const withShopSettings = (c: Command) =>
  c
    .option(
      "--duplicate-answer <conflict|ok>",
      "a repeated webhook id: 409 (conflict, the spec) or 200 duplicate (ok)",
    )
    .option("--click-window-hours <n>", "attribute an order to a click this recent (default 120)")
    .option("--open-window-hours <n>", "else to an open this recent (default 24; 0 turns opens off)")
    .option(
      "--abandoned-steps <minutes,...>",
      "abandoned-cart delays after the checkout, up to 3 (default 60)",
    )
    .option("--abandoned-template <templateId>", "the project template each step sends")
    .option("--abandoned-from <email>", "the verified sender of the abandoned-cart emails")
    .option("--abandoned-from-name <name>");
withShopSettings(
  shops
    .command("connect <projectId> <shopDomain>")
    .description("connect a shop domain; its webhooks must then carry this project's id")
    .option("--secret <secret>", "the webhook secret the platform signs with (HMAC-SHA256)"),
).action(async (id: string, domain: string, o: Record<string, string | undefined>) =>
  print(
    await call(target(), "POST", route`/projects/${id}/shops`, {
      shop_domain: domain,
      secret: o.secret,
      ...shopSettings(o),
    }),
  ),
);
shops
  .command("list <projectId>")
  .action(async (id: string) => print(await call(target(), "GET", route`/projects/${id}/shops`)));
shops
  .command("show <projectId> <shopId>")
  .action(async (id: string, shopId: string) =>
    print(await call(target(), "GET", route`/projects/${id}/shops/${shopId}`)),
  );
withShopSettings(shops.command("set <projectId> <shopId>")).action(
  async (id: string, shopId: string, o: Record<string, string | undefined>) =>
    print(await call(target(), "PATCH", route`/projects/${id}/shops/${shopId}`, shopSettings(o))),
);
shops
  .command("rotate-secret <projectId> <shopId> <secret>")
  .description(
    "the previous secret stays valid for --grace-minutes (default 60: the platform switches slowly)",
  )
  .option("--grace-minutes <n>")
  .action(async (id: string, shopId: string, secret: string, o: { graceMinutes?: string }) =>
    print(
      await call(target(), "POST", route`/projects/${id}/shops/${shopId}/rotate-secret`, {
        secret,
        grace_minutes: o.graceMinutes === undefined ? undefined : Number(o.graceMinutes),
      }),
    ),
  );
shops
  .command("disconnect <projectId> <shopId>")
  .action(async (id: string, shopId: string) =>
    print(await call(target(), "DELETE", route`/projects/${id}/shops/${shopId}`)),
  );

registerCampaignCommands(program, { target, print, route, query, readHtml });

registerImportCommands(program, { target, print, route });

program
  .command("add-sender <projectId> <email>")
  .description("add a verified sender address (local use; production verifies through /domains)")
  .option("--name <name>", "display name", "Sender")
  .action(async (id: string, email: string, o: { name: string }) =>
    print(await call(target(), "POST", route`/projects/${id}/senders`, { email, name: o.name })),
  );

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
