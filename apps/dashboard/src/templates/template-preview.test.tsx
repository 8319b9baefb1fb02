// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { TemplatePreview } from "./template-preview";

afterEach(cleanup);

const HTML =
  '<p>Hi {name || "there"}</p>{!sig}<ul>{{#each items}}<li>{this.title}</li>{{/each}}</ul><b>{html}</b>';

/** The editor's shape: a variables box the user types in, and the preview beside it. */
function Harness({ initial }: { initial: string }) {
  const [vars, setVars] = useState(initial);
  return (
    <>
      <label>
        Variables
        <textarea value={vars} onChange={(e) => setVars(e.target.value)} />
      </label>
      <TemplatePreview subject="Order {order.id}" html={HTML} variables={vars} />
    </>
  );
}

const frame = () => screen.getByTitle("Rendered email preview").getAttribute("srcdoc") ?? "";

describe("TemplatePreview", () => {
  it("renders the template syntax over the sample variables and follows their edits", () => {
    render(<Harness initial={JSON.stringify({ order: { id: "A-1" }, items: [{ title: "Tea" }] })} />);
    expect(screen.getByTestId("preview-subject").textContent).toBe("Order A-1");
    // the fallback, an empty {!raw}, one loop item
    expect(frame()).toBe("<p>Hi there</p><ul><li>Tea</li></ul><b></b>");

    fireEvent.change(screen.getByLabelText("Variables"), {
      target: {
        value: JSON.stringify({
          name: "Ada",
          sig: "<i>— Bob</i>",
          html: "<script>x</script>",
          order: { id: "B-2" },
          items: [{ title: "Tea" }, { title: "Cake" }],
        }),
      },
    });
    expect(screen.getByTestId("preview-subject").textContent).toBe("Order B-2");
    // {v} escapes, {!raw} does not, the loop repeats per item
    expect(frame()).toBe(
      "<p>Hi Ada</p><i>— Bob</i><ul><li>Tea</li><li>Cake</li></ul><b>&lt;script&gt;x&lt;/script&gt;</b>",
    );
  });

  it("says in words when the sample variables are not a JSON object", () => {
    render(<Harness initial="{not json" />);
    expect(screen.getByRole("alert").textContent).toMatch(/not valid JSON/);
    fireEvent.change(screen.getByLabelText("Variables"), { target: { value: "[1,2]" } });
    expect(screen.getByRole("alert").textContent).toMatch(/must be a JSON object/);
  });

  it("shows the preview in a sandboxed frame (no scripts, no access to the dashboard)", () => {
    render(<Harness initial="{}" />);
    expect(screen.getByTitle("Rendered email preview").getAttribute("sandbox")).toBe("");
  });
});
