// @vitest-environment jsdom
// The segment builder alone, with a fake count in place of the admin API: the filter its rules make (AND/OR,
// groups, incomplete rules left out), the debounced live count, "about N" for an estimate, and editing that never
// waits on a count.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SegmentBuilder } from "./segment-builder";
import { emptyModel, type SegmentFilter, type SegmentModel, toFilter } from "./segment-rules";
import type { CountFilter, SegmentCount } from "./use-segments";

afterEach(cleanup);

function setup(answer: (f: SegmentFilter) => SegmentCount | Promise<SegmentCount>) {
  const calls: SegmentFilter[] = [];
  const countFilter: CountFilter = async (f) => {
    calls.push(f);
    return answer(f);
  };
  let latest: SegmentModel = emptyModel();
  function Harness() {
    const [model, setModel] = useState<SegmentModel>(emptyModel);
    latest = model;
    return <SegmentBuilder model={model} onChange={setModel} countFilter={countFilter} countKey="p1" />;
  }
  const qc = new QueryClient();
  render(
    <QueryClientProvider client={qc}>
      <Harness />
    </QueryClientProvider>,
  );
  return { calls, model: () => latest };
}

describe("toFilter", () => {
  it("joins rules and groups with AND or OR and leaves incomplete rules out", () => {
    expect(toFilter(emptyModel())).toBeNull();
    expect(
      toFilter({
        match: "any",
        groups: [
          {
            match: "all",
            rules: [
              { kind: "tag", tag: "vip", has: true },
              { kind: "attribute", attribute: "plan", op: "eq", value: "pro" },
              { kind: "attribute", attribute: "", op: "eq", value: "x" },
            ],
          },
          {
            match: "any",
            rules: [
              { kind: "event", event: "purchase", min_count: "2", within_days: "30" },
              { kind: "tag", tag: "churned", has: false },
            ],
          },
          { match: "all", rules: [{ kind: "subscription", subscription: "subscribed" }] },
        ],
      }),
    ).toEqual({
      any: [
        { all: [{ tag: "vip" }, { attribute: "plan", op: "eq", value: "pro" }] },
        { any: [{ event: "purchase", min_count: 2, within_days: 30 }, { not: { tag: "churned" } }] },
        { subscription: "subscribed" },
      ],
    });
  });

  it("takes numbers for the numeric comparisons and no value for is set", () => {
    const one = (rule: SegmentModel["groups"][0]["rules"][0]) =>
      toFilter({ match: "all", groups: [{ match: "all", rules: [rule] }] });
    expect(one({ kind: "attribute", attribute: "age", op: "gte", value: "18" })).toEqual({
      attribute: "age",
      op: "gte",
      value: 18,
    });
    expect(one({ kind: "attribute", attribute: "age", op: "gte", value: "eighteen" })).toBeNull();
    expect(one({ kind: "attribute", attribute: "vip", op: "exists", value: "" })).toEqual({
      attribute: "vip",
      op: "exists",
    });
    expect(one({ kind: "event", event: "login", min_count: "1", within_days: "" })).toEqual({
      event: "login",
      min_count: 1,
    });
  });
});

describe("SegmentBuilder", () => {
  it("counts once the rules stop changing (debounced), with the last rules", async () => {
    const { calls } = setup((f) => ({ count: "tag" in f && f.tag === "vip" ? 42 : 7, exact: true }));
    expect(screen.getByRole("status").textContent).toMatch(/Complete a rule/);
    const tag = screen.getByLabelText("Group 1 rule 1: tag");
    for (const prefix of ["v", "vi", "vip"]) fireEvent.change(tag, { target: { value: prefix } });
    await waitFor(() => expect(screen.getByTestId("segment-count").textContent).toBe("42"));
    expect(calls).toEqual([{ tag: "vip" }]);
  });

  it("says about N for an estimate, and keeps the page usable while a count is pending", async () => {
    let release: (c: SegmentCount) => void = () => {};
    const { calls, model } = setup((f) =>
      "all" in f ? new Promise<SegmentCount>((r) => (release = r)) : { count: 1_200_000, exact: false },
    );
    fireEvent.change(screen.getByLabelText("Group 1 rule 1: tag"), { target: { value: "vip" } });
    await waitFor(() => expect(screen.getByTestId("segment-count").textContent).toBe("about 1,200,000"));

    fireEvent.click(screen.getByRole("button", { name: "Add a rule to group 1" }));
    fireEvent.change(screen.getByLabelText("Group 1 rule 2: attribute name"), { target: { value: "plan" } });
    fireEvent.change(screen.getByLabelText("Group 1 rule 2: value"), { target: { value: "pro" } });
    await waitFor(() => expect(calls).toHaveLength(2));
    // the slow count has not answered: the last count stays, marked, and the rules can still be edited
    expect(screen.getByRole("status").textContent).toMatch(/about 1,200,000.*counting again/);
    const or = screen.getAllByRole("radio", { name: "any (OR)" })[0]!;
    fireEvent.click(or);
    expect(model().groups[0]!.match).toBe("any");
    await act(async () => release({ count: 3, exact: true }));
    await waitFor(() =>
      expect(calls.at(-1)).toEqual({ any: [{ tag: "vip" }, { attribute: "plan", op: "eq", value: "pro" }] }),
    );
    expect(calls[1]).toEqual({ all: [{ tag: "vip" }, { attribute: "plan", op: "eq", value: "pro" }] });
  });
});
