// Every TypeScript example of README.md, run as written against the real public-api (test/service.ts), so the
// docs cannot rot: a renamed method, a changed field or a wrong answer shape fails here. Each ```ts block runs in
// order as an async function; `import … from "@emailsvc/sdk"` is this package's source. What a reader fills in is
// filled in here: the base URL, the key (EMAIL_API_KEY), the placeholders ("0b7e…", "<scheduled_send_id>",
// "<segment id>"), and the free names a block assumes (`message`, `order`, `apiKey`, `baseUrl`, an Express `app`
// and the reader's own handlers). The webhook block's handler is called with a delivery signed by the
// webhook-dispatcher's own signer. Only the domains block cannot run here (domain-service is not started): it is
// checked by the compiler with the rest.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { signedHeaders } from "../../../apps/webhook-dispatcher/src/domain/sign.js";
import * as sdk from "../src/index.js";
import { type Service, startService } from "./service.js";

jest.setTimeout(120_000);

const README = fs.readFileSync(path.join(__dirname, "../README.md"), "utf8");
const blocks = [...README.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service?.stop();
});

/** A block as an async function of the names it assumes: its imports become reads of the given modules. */
function compile(block: string, names: string[]) {
  const imports: string[] = [];
  const body = block.replace(/^import (.+) from "([^"]+)";\n/gm, (_m, what: string, from: string) => {
    imports.push(
      `const ${what.replace(/^\w+$/, (d) => `{ default: ${d} }`)} = __modules[${JSON.stringify(from)}];`,
    );
    return "";
  });
  // a block that uses the client without importing it reads on from the first example's import
  if (!imports.some((i) => /\bEmailService\b/.test(i)))
    imports.push('const { EmailService } = __modules["@emailsvc/sdk"];');
  const js = ts.transpileModule(`(async () => {\n${imports.join("\n")}\n${body}\n})`, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None },
  }).outputText;
  return new Function("__modules", ...names, `return ${js.trim().replace(/;$/, "")};`) as (
    ...args: unknown[]
  ) => () => Promise<void>;
}

it("the README's examples all compile against the SDK's types", () => {
  // one module: the imports hoisted, each block in its own async function, the free names declared
  const imports = new Set<string>();
  const bodies = blocks.map((b) =>
    b.replace(/^import .+;\n/gm, (line) => {
      // the reader's Express: only the two calls the example makes, typed loosely as a reader's app would be
      if (line.includes('from "express"'))
        imports.add("declare const express: { raw(o: unknown): unknown };");
      else imports.add(line.replace('"@emailsvc/sdk"', '"../src/index.js"').trim());
      return "";
    }),
  );
  const source = [
    ...imports,
    'import type { SendEmailRequest } from "../src/index.js";',
    "declare const mail: EmailService, message: SendEmailRequest, order: { id: string };",
    "declare const apiKey: string, baseUrl: string;",
    "declare const app: { post(path: string, parse: unknown, handler: (req: any, res: any) => unknown): void };",
    "declare function markDelivered(id: string): void;",
    "declare function suppress(emails: string[]): void;",
    "declare function saveReply(threadId: string | null, text: string | null): void;",
    ...bodies.map(
      (b, i) => `export async function example${i}() {\n${b.replace(/^const mail = /m, "const mail2 = ")}\n}`,
    ),
  ].join("\n");
  const file = path.join(__dirname, "readme-examples.generated.ts");
  fs.writeFileSync(file, source);
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: ["node"],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(errors).toEqual([]);
  } finally {
    fs.rmSync(file, { force: true });
  }
});

it("runs every example against the service, each doing what it says", async () => {
  const { project, apiUrl, admin, db } = service;
  process.env.EMAIL_API_KEY = project.testKey;
  for (const sender of ["hello@shop.example", "news@shop.example"])
    await admin("POST", `/projects/${project.id}/senders`, { email: sender, name: "Shop" }).catch(
      () => undefined,
    );
  const { template } = await admin("POST", `/projects/${project.id}/templates`, {
    name: "readme",
    subject: "Order {{order}}",
    html: "<p>Order {{order}}</p>",
  });
  const { segment } = await admin("POST", `/projects/${project.id}/segments`, {
    name: `readme ${Date.now()}`,
    type: "static",
  });
  const latestScheduled = async () =>
    (
      await db.pool.query<{ id: string }>(
        "SELECT id FROM scheduled_sends WHERE project_id = $1 ORDER BY created_at DESC LIMIT 1",
        [project.id],
      )
    ).rows[0]!.id;

  const mail = new sdk.EmailService({ apiKey: project.testKey, baseUrl: apiUrl });
  const message = {
    recipient_email: "ada@example.com",
    sender_email: "hello@shop.example",
    subject: "README",
    html_body: "<p>hi</p>",
  };
  const calls: Record<string, unknown[]> = { markDelivered: [], suppress: [], saveReply: [] };
  const routes: { path: string; handlers: ((...a: any[]) => unknown)[] }[] = [];
  const app = {
    post: (p: string, ...handlers: ((...a: any[]) => unknown)[]) => routes.push({ path: p, handlers }),
  };
  const express = { raw: () => (_req: unknown, _res: unknown, next: () => void) => next() };
  const logged: unknown[][] = [];
  const console = { log: (...a: unknown[]) => logged.push(a), warn: () => undefined };

  const names = ["mail", "message", "order", "apiKey", "baseUrl", "app", "console"];
  const ran: number[] = [];
  for (const [i, raw] of blocks.entries()) {
    if (raw.includes("mail.domains.")) continue; // domain-service is not part of this test's stack
    const block = raw
      .replaceAll('"https://mail.example.com"', JSON.stringify(apiUrl))
      .replaceAll('"0b7e…"', JSON.stringify(template.template_id))
      .replaceAll('"<scheduled_send_id>"', "(await __latestScheduled())")
      .replaceAll('"<segment id>"', JSON.stringify(segment.id))
      .replaceAll("markDelivered(", "__calls.markDelivered.push(")
      .replaceAll("suppress(", "__calls.suppress.push(")
      .replaceAll("saveReply(", "__calls.saveReply.push(");
    const run = compile(block, [...names, "__latestScheduled", "__calls"])(
      { "@emailsvc/sdk": sdk, express: { default: express } },
      mail,
      message,
      { id: randomUUID() },
      project.testKey,
      apiUrl,
      app,
      console,
      latestScheduled,
      calls,
    );
    try {
      await run();
    } catch (e) {
      throw new Error(`README example ${i + 1} failed: ${(e as Error).stack}\n--- the example ---\n${raw}`);
    }
    ran.push(i);
  }
  expect(ran.length).toBe(blocks.length - 1);
  // the first example's answer was printed as it says: queued with the email's id
  expect(logged).toContainEqual(["queued", expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  // the scheduled batch's send was read and cancelled through its id
  expect(
    (
      await db.pool.query(
        "SELECT status FROM scheduled_sends WHERE project_id = $1 AND status = 'cancelled'",
        [project.id],
      )
    ).rowCount,
  ).toBeGreaterThan(0);

  // the webhook example: its handler, given a delivery signed as the webhook-dispatcher signs, calls the reader's
  // markDelivered with the activity, and refuses a forged one with 400
  const route = routes.find((r) => r.path === "/hooks/email")!;
  const handler = route.handlers.at(-1)!;
  const deliver = async (body: string, headers: Record<string, string>) => {
    let status = 0;
    const res = { sendStatus: (s: number) => (status = s) };
    await handler({ body: Buffer.from(body), headers }, res);
    return status;
  };
  const activityId = randomUUID();
  const body = JSON.stringify({
    event: "email.delivered",
    created_at: new Date().toISOString(),
    is_test: true,
    data: { activity_id: activityId, project_id: project.id },
  });
  expect(await deliver(body, signedHeaders(body, project.testKey, randomUUID()))).toBe(200);
  expect(calls.markDelivered).toEqual([activityId]);
  expect(await deliver(body, signedHeaders(body, "sk_test_" + "0".repeat(48), randomUUID()))).toBe(400);
});
