import fs from "node:fs";
import path from "node:path";
import { routeFor, SERVICES } from "../src/services";

const conf = fs.readFileSync(path.resolve(__dirname, "../../../infra/gateway/nginx.conf"), "utf8");

describe("nginx gateway (infra/gateway/nginx.conf)", () => {
  const locations = [...conf.matchAll(/location\s+(=\s+)?(\S+)\s*\{([^}]*)\}/g)].map((m) => ({
    exact: Boolean(m[1]),
    path: m[2]!,
    upstream: /proxy_pass http:\/\/(\w+)/.exec(m[3]!)?.[1],
  }));

  it("proxies exactly the public prefixes of the service table to the right service", () => {
    const proxied = locations
      .filter((l) => l.upstream)
      .map((l) => `${l.path} ${l.upstream!.replace(/_/g, "-")}`)
      .sort();
    const expected = SERVICES.flatMap((s) => s.publicPrefixes.map((p) => `${p} ${s.name}`)).sort();
    expect(proxied).toEqual(expected);
  });

  it.each(["/send-email", "/trigger-campaign", "/trigger-job", "/admin/projects"])(
    "never routes the internal path %s",
    (p) => {
      const match = locations.filter((l) => l.upstream && !l.exact && p.startsWith(l.path));
      expect(match).toEqual([]);
      expect(routeFor(p)).toBeUndefined(); // the local Node gateway agrees
    },
  );

  it("answers anything else with 404", () => {
    expect(conf).toMatch(/location \/ \{[^}]*return 404/);
  });
});
