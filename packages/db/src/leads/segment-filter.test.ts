import { segmentFilterSchema } from "@emailsvc/contracts";
import { compileSegmentFilter, SqlParams } from "./segment-filter";

const compile = (filter: unknown) => {
  const params = new SqlParams(["project"]);
  const sql = compileSegmentFilter(segmentFilterSchema.parse(filter), params);
  return { sql, values: params.values };
};

describe("compileSegmentFilter", () => {
  it("puts every client value in a bind parameter, never in the SQL text", () => {
    const evil = "x'); DROP TABLE leads; --";
    const { sql, values } = compile({
      all: [
        { event: evil, min_count: 2, within_days: 30 },
        { tag: evil },
        { attribute: "plan", op: "contains", value: evil },
        { not: { subscription: "unsubscribed" } },
      ],
    });
    expect(sql).not.toContain("DROP");
    expect(sql).not.toContain("30");
    expect(values).toEqual(["project", 30, evil, 2, 2, evil, "plan", evil, "unsubscribed"]);
    expect(sql).toMatch(/^\(.* AND .* AND .* AND \(NOT .*\)\)$/);
  });

  it("an event condition with min_count 0 and no max is always true; max_count bounds the count", () => {
    expect(compile({ event: "login", min_count: 0 }).sql).toBe("true");
    const { sql, values } = compile({ event: "login", min_count: 0, max_count: 0 });
    expect(sql).toContain("<= $");
    expect(values).toEqual(["project", "login", 1, 0]);
  });

  it("numeric comparisons only match numbers", () => {
    const { sql } = compile({ attribute: "seats", op: "gte", value: 5 });
    expect(sql).toContain("jsonb_typeof");
    expect(sql).toContain(">=");
  });
});
