import { renderDoubleBraces } from "./render-double-braces";
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
    expect(r.variablesUsed).toEqual(["items", "tags"]);
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
