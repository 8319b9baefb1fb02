import { MAX_RENDERED_LENGTH, RenderLimitError, renderDoubleBraces } from "./render-double-braces";
import { renderTemplate } from "./render-template";

describe("renderTemplate (spec section 2 syntax)", () => {
  it("substitutes, escapes by default and lists variables used", () => {
    const r = renderTemplate("<p>Hi {name}, {!sig} {missing}</p>", { name: "<Ada>", sig: "<b>x</b>" });
    expect(r.text).toBe("<p>Hi &lt;Ada&gt;, <b>x</b> </p>");
    expect(r.variablesUsed).toEqual(["name", "sig", "missing"]);
  });

  it("uses the fallback only when the value is missing or empty", () => {
    expect(renderTemplate('{name || "friend"}', {}).text).toBe("friend");
    expect(renderTemplate('{name || "friend"}', { name: "" }).text).toBe("friend");
    expect(renderTemplate('{name || "friend"}', { name: "Bo" }).text).toBe("Bo");
    expect(renderTemplate('{{ name || "a \\"q\\"" }}', {}).text).toBe("a &quot;q&quot;");
  });

  it("loops with {{#each}} over arrays of objects and scalars", () => {
    const html =
      "<ul>{{#each items}}<li>{@index}:{title} {currency}</li>{{/each}}</ul>{{#each tags}}[{this}]{{/each}}";
    const r = renderTemplate(html, {
      items: [{ title: "A&B" }, { title: "C" }],
      currency: "EUR",
      tags: ["x", "y"],
    });
    expect(r.text).toBe("<ul><li>0:A&amp;B EUR</li><li>1:C EUR</li></ul>[x][y]");
    // {title} is each item's field; {currency}, read from the variables, is a variable used.
    expect(r.variablesUsed).toEqual(["items", "currency", "tags"]);
  });

  it("writes values as data: a value that looks like a placeholder is never rendered again", () => {
    const html =
      '<ul>{{#each items}}<li>{name}</li>{{/each}}</ul><p>{note}</p>{{#each items}}{x || "{note}"}{{/each}}';
    const r = renderTemplate(html, {
      note: "<img src=x onerror=alert(1)>",
      red: "RED",
      items: [{ name: "{!note}" }, { name: "Mug {red}" }],
    });
    expect(r.text).toBe(
      "<ul><li>{!note}</li><li>Mug {red}</li></ul><p>&lt;img src=x onerror=alert(1)&gt;</p>{note}{note}",
    );
    expect(r.variablesUsed).toEqual(["items", "note", "x"]);
    expect(renderTemplate("{a}", { a: "{b}", b: "no" }).text).toBe("{b}");
  });

  it("nests loops: inner names read the inner item, then the outer item, then the variables", () => {
    const html =
      "{{#each groups}}<h2>{title}</h2>{{#each rows}}<i>{@index}{v}{title}{this.v}{cur}</i>{{/each}}{{/each}}";
    const r = renderTemplate(html, {
      cur: "$",
      groups: [
        { title: "G1", rows: [{ v: 1 }, { v: 2 }] },
        { title: "G2", rows: [] },
      ],
    });
    expect(r.text).toBe("<h2>G1</h2><i>01G11$</i><i>12G12$</i><h2>G2</h2>");
  });

  it("leaves an unclosed {{#each}} and a stray {{/each}} as text, in linear time", () => {
    expect(renderTemplate("a{{#each xs}}b{x}", { x: 1, xs: [1] }).text).toBe("a{{#each xs}}b1");
    expect(renderTemplate("a{{/each}}{x}", { x: 1 }).text).toBe("a{{/each}}1");
    expect(renderTemplate("{{#each a}}{{#each b}}x{{/each}}", { a: [1], b: [1] }).text).toBe("{{#each a}}x");
    const t = performance.now();
    const big = "<p>x</p>" + "{{#each a}}".repeat(100_000) + '{b || "' + "y".repeat(100_000);
    expect(renderTemplate(big, { a: [1] }).text).toBe(big);
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it("reads identifiers in any script, and keeps loops nested too deep as text, pairing the rest", () => {
    expect(renderTemplate("{unicodé} {名前}", { unicodé: "u", 名前: "n" }).text).toBe("u n");
    const nested = (n: number): unknown => (n === 0 ? [{ x: "X" }] : [{ a: nested(n - 1) }]);
    const deep = "{{#each a}}".repeat(33) + "{x}" + "{{/each}}" + "|" + "{{/each}}".repeat(32);
    // 32 loops run; the 33rd opener and the first closer stay text, inside the innermost loop
    expect(renderTemplate(deep, { a: nested(31), x: "top" }).text).toBe("{{#each a}}X{{/each}}|");
  });

  it("a huge unclosed loop is text, whatever the size of what follows it", () => {
    const t = "{{#each a}}" + "{x}".repeat(200_000);
    expect(renderTemplate(t, { x: "y", a: [1] }).text).toBe("{{#each a}}" + "y".repeat(200_000));
  });

  it("leaves CSS and JSON braces untouched", () => {
    const html =
      '<style>p{color:red} .a { margin: 0 }</style><script type="application/ld+json">{"@type":"Order","n":{"a":1}}</script>{name}';
    expect(renderTemplate(html, { name: "Z" }).text).toBe(
      '<style>p{color:red} .a { margin: 0 }</style><script type="application/ld+json">{"@type":"Order","n":{"a":1}}</script>Z',
    );
  });

  it("reads nested paths and does not escape in text mode", () => {
    expect(renderTemplate("{user.name} & co", { user: { name: "<A>" } }, { html: false }).text).toBe(
      "<A> & co",
    );
  });
});

describe("renderDoubleBraces ({{variable}} of the send endpoints)", () => {
  it("substitutes and escapes in HTML only", () => {
    expect(renderDoubleBraces("Hi {{ name }}", { name: "<b>" }, { html: true })).toEqual({
      text: "Hi &lt;b&gt;",
      variablesUsed: ["name"],
    });
    expect(renderDoubleBraces("Hi {{name}}", { name: "<b>" }, { html: false }).text).toBe("Hi <b>");
    expect(renderDoubleBraces("{x} {{y}}", {}, { html: true }).text).toBe("{x} ");
  });

  it("reads only the data's own properties, never Object.prototype's", () => {
    const html = "[{{toString}}][{{constructor}}][{{hasOwnProperty}}][{{__proto__}}][{{a.valueOf}}]";
    expect(renderDoubleBraces(html, { a: {} }, { html: true }).text).toBe("[][][][][]");
    expect(renderDoubleBraces("{{constructor}}", { constructor: "own" }, { html: false }).text).toBe("own");
    expect(renderTemplate('<p>Hi {constructor} {toString || "x"}</p>', {}).text).toBe("<p>Hi  x</p>");
  });
});

describe("rendering limits", () => {
  it("refuses output past MAX_RENDERED_LENGTH instead of building it", () => {
    const many = "{{a}}".repeat(1_000_000);
    expect(() => renderDoubleBraces(many, { a: "x".repeat(1000) }, { html: true })).toThrow(RenderLimitError);
    expect(() => renderTemplate("{a}".repeat(1_000_000), { a: "x".repeat(1000) })).toThrow(
      "longer than 5,000,000 characters once rendered",
    );
    // exactly at the limit is fine
    const exact = renderDoubleBraces("{{a}}", { a: "y".repeat(MAX_RENDERED_LENGTH) }, { html: false });
    expect(exact.text).toHaveLength(MAX_RENDERED_LENGTH);
  });

  it("bounds the work of nested loops, also when their bodies are empty", () => {
    const list = Array.from({ length: 1000 }, () => 1);
    const t = "{{#each a}}{{#each a}}{{#each a}}{x}{{/each}}{{/each}}{{/each}}";
    expect(() => renderTemplate(t, { a: list })).toThrow("its loops take more than 5,000,000 steps");
    const empty = "{{#each a}}{{#each a}}{{/each}}{{/each}}";
    const many = Array.from({ length: 20_000 }, () => 1);
    expect(() => renderTemplate(empty, { a: many })).toThrow("its loops take more than 5,000,000 steps");
  });
});
