// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AdminClientContext, createAdminClient } from "../api/client";
import { SendTestDialog } from "./send-test-dialog";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const PROJECT = "11111111-1111-4111-8111-111111111111";
const TEMPLATE = "22222222-2222-4222-8222-222222222222";

/** The dialog over the real typed client, whose fetch answers as the admin API would. */
function setUp(answer: { status: number; body: unknown }, variables = '{"name": "Ada"}') {
  const calls: { url: string; method: string; body: unknown; csrf: string | null }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (req: Request) => {
      calls.push({
        url: req.url,
        method: req.method,
        body: await req.json(),
        csrf: req.headers.get("x-csrf-token"),
      });
      return new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { "content-type": "application/json" },
      });
    }),
  );
  const api = createAdminClient("http://admin.test");
  api.setCsrfToken("csrf-1");
  render(
    <AdminClientContext.Provider value={api}>
      <QueryClientProvider client={new QueryClient()}>
        <SendTestDialog
          projectId={PROJECT}
          templateId={TEMPLATE}
          variables={variables}
          disabled={false}
          unsaved
        />
      </QueryClientProvider>
    </AdminClientContext.Provider>,
  );
  fireEvent.click(screen.getByRole("button", { name: "Send test" }));
  return calls;
}

const fillAndSend = (to: string) => {
  fireEvent.change(screen.getByLabelText("Send to"), { target: { value: to } });
  fireEvent.click(screen.getByRole("button", { name: "Send" }));
};

describe("SendTestDialog", () => {
  it("posts the address and the sample variables as a test send, and shows the API's answer", async () => {
    const calls = setUp({
      status: 200,
      body: {
        success: true,
        message: "Test of template Shipped queued for qa@example.org (test)",
        mode: "test",
      },
    });
    expect(screen.getByRole("dialog").textContent).toContain("Your unsaved changes are not in it");
    fillAndSend("qa@example.org");
    await waitFor(() =>
      expect(screen.getByRole("status").textContent).toBe(
        "Test of template Shipped queued for qa@example.org (test)",
      ),
    );
    expect(calls).toEqual([
      {
        url: `http://admin.test/admin/projects/${PROJECT}/templates/${TEMPLATE}/send-test`,
        method: "POST",
        body: { to: "qa@example.org", variables: { name: "Ada" }, mode: "test" },
        csrf: "csrf-1",
      },
    ]);
  });

  it("shows a refusal in the API's words", async () => {
    setUp({
      status: 403,
      body: { success: false, error: "Sender not verified", code: "SENDER_NOT_VERIFIED" },
    });
    fillAndSend("qa@example.org");
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("Not sent: Sender not verified"));
  });

  it("sends nothing while the sample variables are not a JSON object", async () => {
    const calls = setUp({ status: 200, body: {} }, "[1, 2]");
    fillAndSend("qa@example.org");
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("must be a JSON object"));
    expect(calls).toEqual([]);
  });
});
