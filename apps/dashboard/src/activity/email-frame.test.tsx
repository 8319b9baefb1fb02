// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { EmailFrame } from "./email-frame";
import { countRemoteResources, sandboxEmail } from "./sandbox-email";

afterEach(cleanup);

const cspOf = (html: string) =>
  /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "no policy";

describe("sandboxEmail", () => {
  it("allows only data: images, inline styles and no other loads until asked", () => {
    const csp = cspOf(sandboxEmail("<p>Hi</p>", { allowRemote: false }));
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("img-src data:;");
    expect(csp).toContain("style-src 'unsafe-inline';");
    expect(csp).not.toContain("http");
  });

  it("allows http(s) images, stylesheets and fonts once asked, still nothing else", () => {
    const csp = cspOf(sandboxEmail("<p>Hi</p>", { allowRemote: true }));
    expect(csp).toContain("img-src data: http: https:");
    expect(csp).toContain("default-src 'none'");
  });

  it("puts the policy in the email's own head, or after its doctype, or first", () => {
    const inHead = sandboxEmail(
      '<!doctype html><html><head lang="en"><title>x</title></head><body></body></html>',
      {
        allowRemote: false,
      },
    );
    expect(inHead).toMatch(
      /^<!doctype html><html><head lang="en"><meta http-equiv="Content-Security-Policy"/,
    );
    expect(sandboxEmail("<!DOCTYPE html><p>x</p>", { allowRemote: false })).toMatch(
      /^<!DOCTYPE html><meta http-equiv="Content-Security-Policy"/,
    );
    expect(sandboxEmail("<header>x</header>", { allowRemote: false })).toMatch(
      /^<meta http-equiv="Content-Security-Policy".*<header>x<\/header>$/,
    );
  });

  it("drops a meta refresh, which would navigate the frame elsewhere", () => {
    const out = sandboxEmail('<meta http-equiv="refresh" content="0;url=https://x.example/"><p>Hi</p>', {
      allowRemote: true,
    });
    expect(out).not.toContain("refresh");
    expect(out).toContain("<p>Hi</p>");
  });

  it("counts the remote resources the button would load, not links", () => {
    const html =
      '<img src="https://cdn.example/a.png"><img src=\'data:image/png;base64,AA\'><td background="http://x.example/b.jpg">' +
      '<div style="background:url(https://x.example/c.png)"></div><a href="https://x.example/">link</a>' +
      '<link rel="stylesheet" href="https://fonts.example/css">';
    expect(countRemoteResources(html)).toBe(4);
  });
});

describe("EmailFrame", () => {
  it("shows the email in a fully sandboxed frame, remote content blocked until the button is pressed", () => {
    render(
      <EmailFrame html='<p>Hello</p><img src="https://t.example/open.gif">' title="The email as sent" />,
    );
    const frame = screen.getByTitle("The email as sent") as HTMLIFrameElement;
    expect(frame.getAttribute("sandbox")).toBe("");
    expect(cspOf(frame.getAttribute("srcdoc") ?? "")).toContain("img-src data:;");
    expect(screen.getByText(/Remote content is blocked \(1 remote resource in this email\)/)).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Load remote content" }));
    expect(cspOf(frame.getAttribute("srcdoc") ?? "")).toContain("img-src data: http: https:");
    expect(screen.getByRole("status").textContent).toBe("Remote content is loaded.");
    expect(frame.getAttribute("sandbox")).toBe("");
  });
});
