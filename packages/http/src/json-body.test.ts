import zlib from "node:zlib";
import express from "express";
import request from "supertest";
import { createLogger } from "@emailsvc/observability";
import { errorMiddleware } from "./error-middleware";
import { jsonBody, jsonBodyProblem, jsonBodyProblemInSlices, MAX_JSON_DEPTH, WALK_SLICE } from "./json-body";

const nested = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels)) as unknown;

describe("jsonBodyProblem", () => {
  it("accepts ordinary bodies and exactly MAX_JSON_DEPTH levels", () => {
    expect(jsonBodyProblem({ a: [1, true, null, "x", { b: "y" }] })).toBeNull();
    expect(jsonBodyProblem(nested(MAX_JSON_DEPTH))).toBeNull();
  });

  it("names a NUL in a value or a key, and nesting past the limit, at any depth", () => {
    expect(jsonBodyProblem({ a: [{ b: "x\0" }] })).toBe(
      "Request body must not contain NUL characters (\\u0000)",
    );
    expect(jsonBodyProblem({ "k\0": 1 })).toBe("Request body must not contain NUL characters (\\u0000)");
    expect(jsonBodyProblem(nested(MAX_JSON_DEPTH + 1))).toBe("Request body nests deeper than 64 levels");
    const surrogate = "Request body must be valid Unicode: a \\uD800-\\uDFFF escape is not part of a pair";
    expect(jsonBodyProblem({ a: { b: "x\ud800" } })).toBe(surrogate);
    expect(jsonBodyProblem({ "\udc00": 1 })).toBe(surrogate);
    expect(jsonBodyProblem({ a: "\ud83d\ude00 emoji" })).toBeNull();
    expect(jsonBodyProblem(nested(100_000))).toBe("Request body nests deeper than 64 levels");
  });
});

describe("jsonBodyProblemInSlices", () => {
  const walk = (body: unknown) =>
    new Promise<{ problem: string | null; turns: number }>((resolve) => {
      let turns = 0;
      let finished = false;
      const tick = () => {
        if (finished) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      jsonBodyProblemInSlices(body, (problem) => {
        finished = true;
        resolve({ problem, turns });
      });
    });
  // a batch-like body: 12,500 recipients, five values each
  const batch = (last: unknown) => ({
    recipients: Array.from({ length: 12_500 }, (_, i) => ({
      email: `r${i}@x.test`,
      data: { n: i === 0 ? last : i },
    })),
  });

  it("answers a small body in the same turn", () => {
    let answer: string | null | undefined;
    jsonBodyProblemInSlices({ a: [1, "x"] }, (p) => (answer = p));
    expect(answer).toBeNull();
    jsonBodyProblemInSlices({ a: "x\0" }, (p) => (answer = p));
    expect(answer).toMatch(/NUL/);
  });

  it("walks a large body over several turns, with jsonBodyProblem's answers", async () => {
    const fine = await walk(batch(1));
    expect(fine.problem).toBeNull();
    // other callbacks ran between the slices: about 62,500 values at WALK_SLICE a turn
    expect(fine.turns).toBeGreaterThanOrEqual(Math.floor(62_500 / WALK_SLICE) - 1);
    // the walk is depth-first from the end: recipient 0's value is among the last visited
    for (const bad of ["x\0", "\ud800", nested(MAX_JSON_DEPTH)]) {
      const body = batch(bad);
      expect((await walk(body)).problem).toBe(jsonBodyProblem(body));
      expect(jsonBodyProblem(body)).not.toBeNull();
    }
  });
});

describe("jsonBody", () => {
  const app = express();
  app.post("/x", ...jsonBody({ limit: "1mb" }), (req, res) => {
    res.json({ got: req.body });
  });
  app.use(errorMiddleware(createLogger({ service: "t", level: "silent" })));

  it("answers 400 with the problem, and passes a clean body on", async () => {
    const bad = await request(app).post("/x").type("json").send('{"a":"\\u0000"}');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      success: false,
      error: "Request body must not contain NUL characters (\\u0000)",
    });
    const ok = await request(app).post("/x").type("json").send('{"a":"\\\\u0000"}');
    expect(ok.body).toEqual({ got: { a: "\\u0000" } });
  });

  it("answers a body of another type with a 400 naming the type, and lets a body-less request through", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
      const res = await request(app).post("/x").set("Content-Type", type).send('{"a":1}');
      expect({ type, status: res.status, body: res.body }).toEqual({
        type,
        status: 400,
        body: { success: false, error: "Content-Type must be application/json" },
      });
    }
    const charset = await request(app)
      .post("/x")
      .set("Content-Type", "application/json; charset=utf-8")
      .send('{"a":1}');
    expect(charset.body).toEqual({ got: { a: 1 } });
    const empty = await request(app).post("/x");
    expect(empty.status).toBe(200);
  });
});

describe("jsonBody({ sliced: true })", () => {
  const appWith = (sliced: boolean) => {
    const app = express();
    app.post("/x", ...jsonBody({ limit: "2mb", sliced }), (req, res) => {
      res.json({ got: req.body as unknown });
    });
    app.use(errorMiddleware(createLogger({ service: "t", level: "silent" })));
    return app;
  };
  const plain = appWith(false);
  const sliced = appWith(true);
  const big = JSON.stringify({
    sender: "a@b.test",
    recipients: Array.from({ length: 12_500 }, (_, i) => ({
      email: `r${i}@x.test`,
      data: { n: i, s: '[,]"' },
    })),
  });

  it("answers every body as express.json does", async () => {
    const cases: { type?: string; body?: string | Buffer; encoding?: string }[] = [
      { type: "application/json", body: '{"a":1}' },
      { type: "application/json", body: big },
      { type: "application/json", body: big.slice(0, -2) },
      { type: "application/json", body: big.replace('"r7@x.test"', '"r7@x.test\\u0000"') },
      { type: "application/json", body: `${big}x` },
      { type: "application/json", body: '["a"]' },
      { type: "application/json", body: '"a"' },
      { type: "application/json", body: "" },
      { type: "application/json", body: "  \n" },
      { type: "application/json", body: "{bad" },
      { type: "application/json; charset=latin1", body: '{"a":1}' },
      { type: "application/json; charset=UTF-8", body: '{"a":"\u00e9"}' },
      { type: "application/json", body: `{"a":"${"x".repeat(2_200_000)}"}` },
      { type: "application/json", body: zlib.gzipSync(big), encoding: "gzip" },
      { type: "application/json", body: '{"a":1}', encoding: "br-nope" },
      { type: "text/plain", body: '{"a":1}' },
      {},
    ];
    for (const c of cases) {
      const answers = [];
      for (const app of [plain, sliced]) {
        let req = request(app).post("/x");
        if (c.type) req = req.set("Content-Type", c.type);
        if (c.encoding) req = req.set("Content-Encoding", c.encoding);
        const res = c.body === undefined ? await req : await req.send(c.body);
        answers.push({ status: res.status, body: res.body as unknown });
      }
      expect({ case: c.type ?? "none", answer: answers[1] }).toEqual({
        case: c.type ?? "none",
        answer: answers[0],
      });
    }
  });
});
