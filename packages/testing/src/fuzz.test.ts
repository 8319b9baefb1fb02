import { bodyCases, caseContentType, caseText, judgeCase, jsonAnswerProblem, type FuzzFailure } from "./fuzz";

describe("the fuzz tests' judge", () => {
  it("names a 5xx, and a 4xx without a JSON error (a 404 only when not allowed)", () => {
    expect(jsonAnswerProblem({ status: 500, body: { error: "x" } })).toBe("answered 500");
    expect(jsonAnswerProblem({ status: 400, body: {} })).toBe("a 400 without an error");
    expect(jsonAnswerProblem({ status: 400, body: { error: "" } })).toBe("a 400 without an error");
    expect(jsonAnswerProblem({ status: 400, body: { error: "email is required" } })).toBeNull();
    expect(jsonAnswerProblem({ status: 404, text: "Not Found" })).toBe("a 404 without an error");
    expect(jsonAnswerProblem({ status: 404, text: "Not Found" }, { allow404: true })).toBeNull();
    expect(jsonAnswerProblem({ status: 201 })).toBeNull();
  });

  it("records a wrong answer with its body, and a request that threw as status -1", async () => {
    const failures: FuzzFailure[] = [];
    await judgeCase("GET /ok", Promise.resolve({ status: 200 }), jsonAnswerProblem, failures);
    await judgeCase("GET /a", Promise.resolve({ status: 503, text: "down" }), jsonAnswerProblem, failures);
    await judgeCase("GET /b", Promise.reject(new Error("socket hang up")), jsonAnswerProblem, failures);
    expect(failures).toEqual([
      { request: "GET /a: answered 503", status: 503, body: "down" },
      { request: "GET /b", status: -1, body: "Error: socket hang up" },
    ]);
  });

  it("sends a case's raw text with its own type, and a JSON case as JSON", () => {
    const [plausible] = bodyCases({
      type: "object",
      properties: { email: { type: "string", format: "email" } },
    });
    expect(caseText(plausible!)).toBe('{"email":"fuzz@example.com"}');
    expect(caseContentType(plausible!, "text/plain")).toBe("text/plain");
    const raw = { label: "r", raw: { text: "a=1", contentType: "application/x-www-form-urlencoded" } };
    expect([caseText(raw), caseContentType(raw)]).toEqual(["a=1", "application/x-www-form-urlencoded"]);
  });
});
