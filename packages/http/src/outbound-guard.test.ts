import { isPublicUnicast, literalIp } from "./outbound-guard";

describe("isPublicUnicast", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "224.0.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "::1",
    "::",
    "::ffff:127.0.0.1",
    "::ffff:8.8.8.8",
    // IPv4-compatible, as WHATWG URL writes [::127.0.0.1] and [::10.0.0.1]
    "::7f00:1",
    "[::a00:1]",
    "::808:808",
    // outside 2000::/3, yet "unicast" to ipaddr.js
    "::1:7f00:1",
    "100::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "64:ff9b::a00:1",
    "2002:a00:1::1",
    "[::1]",
    "not-an-ip",
  ])("refuses %s", (ip) => {
    expect(isPublicUnicast(ip)).toBe(false);
  });

  it.each(["8.8.8.8", "93.184.216.34", "2001:4860:4860::8888", "[2606:4700::1111]"])("allows %s", (ip) => {
    expect(isPublicUnicast(ip)).toBe(true);
  });
});

describe("literalIp", () => {
  it("recognises what URL leaves in hostname for literal addresses", () => {
    expect(literalIp(new URL("http://127.1/").hostname)).toBe("127.0.0.1");
    expect(literalIp(new URL("http://0x7f.0.0.1/").hostname)).toBe("127.0.0.1");
    expect(literalIp(new URL("http://[::ffff:127.0.0.1]/").hostname)).toBe("::ffff:7f00:1");
    expect(literalIp(new URL("http://[::1]:8080/").hostname)).toBe("::1");
    expect(literalIp("example.com")).toBeNull();
    expect(literalIp("localhost")).toBeNull();
  });
});
