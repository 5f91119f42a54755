import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHttpFetchHandlers, type FetchLike, type LookupAll } from "../../src/base/tools/http-fetch.ts";
import { blockedAddressReason } from "../../src/base/tools/network-policy.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { invocationContext } from "../tools/helpers.ts";
import { baseTools, errorOf, okOutput, type BaseToolHarness } from "./base-tools.ts";

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let open: BaseToolHarness;
let guarded: BaseToolHarness;
let serverHits = 0;

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      serverHits += 1;
      const url = new URL(request.url);
      switch (url.pathname) {
        case "/json":
          return Response.json({ hello: "world", method: request.method, agent: request.headers.get("user-agent") });
        case "/text":
          return new Response("plain text");
        case "/echo":
          return Response.json({
            method: request.method,
            contentType: request.headers.get("content-type"),
            body: await request.text(),
            auth: request.headers.get("authorization"),
          });
        case "/redirect":
          return new Response(null, { status: 302, headers: { location: "/json" } });
        case "/see-other":
          return new Response(null, { status: 303, headers: { location: "/echo" } });
        case "/loop":
          return new Response(null, { status: 302, headers: { location: "/loop" } });
        case "/slow":
          await Bun.sleep(2000);
          return new Response("late");
        case "/big":
          return new Response("b".repeat(500_000));
        case "/status":
          return new Response("missing", { status: 404 });
        default:
          return new Response("?", { status: 400 });
      }
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  open = await baseTools({ config: { "http-fetch": { allowPrivateNetwork: true } } });
  guarded = await baseTools();
});

afterAll(() => {
  server.stop(true);
});

describe("http-fetch with allowPrivateNetwork (local test server)", () => {
  it("GETs JSON and returns status, headers and parsed json", async () => {
    const output = okOutput(await open.call("http-fetch__get", { url: `${origin}/json` }));
    expect(output).toMatchObject({
      url: `${origin}/json`,
      status: 200,
      ok: true,
      redirects: 0,
      truncated: false,
      json: { hello: "world", method: "GET", agent: "goondan-http-fetch/0.1" },
    });
    expect((output.headers as Record<string, string>)["content-type"]).toContain("application/json");
  });

  it("returns a text body as text and a 404 as a normal result", async () => {
    expect(okOutput(await open.call("http-fetch__get", { url: `${origin}/text` })).body).toBe("plain text");
    expect(okOutput(await open.call("http-fetch__get", { url: `${origin}/status` }))).toMatchObject({
      status: 404,
      ok: false,
      body: "missing",
    });
  });

  it("POSTs an object as JSON and a string as text, with custom headers", async () => {
    const json = okOutput(
      await open.call("http-fetch__post", {
        url: `${origin}/echo`,
        body: { a: 1 },
        headers: { authorization: "Bearer t" },
      }),
    );
    expect(json.json).toEqual({ method: "POST", contentType: "application/json", body: '{"a":1}', auth: "Bearer t" });
    const text = okOutput(await open.call("http-fetch__post", { url: `${origin}/echo`, body: "hi" }));
    expect((text.json as { contentType: string }).contentType).toBe("text/plain; charset=utf-8");
  });

  it("follows redirects by hand and counts them; 303 turns POST into GET", async () => {
    expect(okOutput(await open.call("http-fetch__get", { url: `${origin}/redirect` }))).toMatchObject({
      url: `${origin}/json`,
      redirects: 1,
      status: 200,
    });
    expect(
      (
        okOutput(await open.call("http-fetch__post", { url: `${origin}/see-other`, body: { a: 1 } })).json as {
          method: string;
        }
      ).method,
    ).toBe("GET");
  });

  it("stops after 5 redirects", async () => {
    expect(errorOf(await open.call("http-fetch__get", { url: `${origin}/loop` })).code).toBe(
      "E_HTTP_FETCH_TOO_MANY_REDIRECTS",
    );
  });

  it("caps the body at maxBytes", async () => {
    const output = okOutput(await open.call("http-fetch__get", { url: `${origin}/big`, maxBytes: 1000 }));
    expect(output).toMatchObject({ truncated: true, bytesRead: 1000 });
    expect(String(output.body).length).toBe(1000);
  });

  it("times out a slow server", async () => {
    const error = errorOf(await open.call("http-fetch__get", { url: `${origin}/slow`, timeoutMs: 200 }));
    expect(error.code).toBe("E_HTTP_FETCH_TIMEOUT");
  });
});

describe("http-fetch refusals (default config)", () => {
  it("refuses loopback by IP, by name (localhost) and IPv6", async () => {
    for (const url of [
      `${origin}/json`,
      `http://localhost:${server.port}/json`,
      `http://[::1]:${server.port}/json`,
      "http://0.0.0.0/",
    ]) {
      const error = errorOf(await guarded.call("http-fetch__get", { url }));
      expect({ url, code: error.code }).toEqual({ url, code: "E_HTTP_FETCH_BLOCKED" });
    }
  });

  it("refuses private, CGNAT, link-local and cloud metadata addresses", async () => {
    for (const url of [
      "http://10.1.2.3/",
      "http://172.16.0.1/",
      "http://192.168.0.1/",
      "http://100.64.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/",
      "http://[fe80::1]/",
      "http://[::ffff:127.0.0.1]/",
    ]) {
      expect({ url, code: errorOf(await guarded.call("http-fetch__get", { url })).code }).toEqual({
        url,
        code: "E_HTTP_FETCH_BLOCKED",
      });
    }
  });

  it("refuses schemes other than http and https, and malformed URLs", async () => {
    expect(errorOf(await guarded.call("http-fetch__get", { url: "file:///etc/passwd" })).code).toBe(
      "E_HTTP_FETCH_SCHEME",
    );
    expect(errorOf(await guarded.call("http-fetch__get", { url: "ftp://example.com/" })).code).toBe(
      "E_HTTP_FETCH_SCHEME",
    );
    expect(errorOf(await guarded.call("http-fetch__get", { url: "not a url" })).code).toBe("E_HTTP_FETCH_URL");
  });

  it("explains how an operator can allow private addresses", async () => {
    expect(errorOf(await guarded.call("http-fetch__get", { url: `${origin}/json` })).suggestion).toContain(
      "allowPrivateNetwork",
    );
  });
});

describe("http-fetch address checks after DNS and on redirects (injected DNS and fetch)", () => {
  const dns: Record<string, string[]> = {
    "public.example": ["93.184.215.14"],
    "internal.example": ["10.0.0.7"],
    "rebind.example": ["93.184.215.14", "127.0.0.1"],
    "other.example": ["93.184.215.15"],
    "v6.example": ["2606:2800:220:1:248:1893:25c8:1946"],
  };
  const lookup: LookupAll = async (hostname) => {
    const addresses = dns[hostname];
    if (addresses === undefined) throw new Error(`ENOTFOUND ${hostname}`);
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

  /** Routes are keyed by the logical URL (the Host header put back); `fetched` records where fetch really went. */
  function harness(routes: Record<string, () => Response>) {
    const fetched: string[] = [];
    const fetchImpl: FetchLike = async (url, init) => {
      fetched.push(url);
      const host = new Headers(init.headers as Record<string, string>).get("host");
      const logical = new URL(url);
      if (host !== null) logical.host = host;
      const route = routes[logical.href];
      if (route === undefined) throw new Error(`fake fetch: unexpected request to ${url}`);
      return route();
    };
    const handlers = createHttpFetchHandlers({ lookup, fetch: fetchImpl });
    const ctx: ToolContext = {
      ...invocationContext(),
      toolCallId: "c1",
      signal: new AbortController().signal,
      config: {},
    };
    return { handlers, ctx, fetched };
  }

  it("fetches a public host", async () => {
    const { handlers, ctx } = harness({ "http://public.example/": () => new Response("hi") });
    expect(await handlers.get!(ctx, { url: "http://public.example/" })).toMatchObject({ status: 200, body: "hi" });
  });

  it("refuses a redirect to a host that resolves to a private address, without requesting it", async () => {
    const { handlers, ctx, fetched } = harness({
      "http://public.example/": () =>
        new Response(null, { status: 302, headers: { location: "http://internal.example/admin" } }),
    });
    await expect(Promise.resolve(handlers.get!(ctx, { url: "http://public.example/" }))).rejects.toMatchObject({
      code: "E_HTTP_FETCH_BLOCKED",
    });
    expect(fetched).toEqual(["http://93.184.215.14/"]);
  });

  it("refuses a redirect straight to a metadata IP", async () => {
    const { handlers, ctx } = harness({
      "http://public.example/": () =>
        new Response(null, { status: 307, headers: { location: "http://169.254.169.254/latest/" } }),
    });
    await expect(Promise.resolve(handlers.get!(ctx, { url: "http://public.example/" }))).rejects.toMatchObject({
      code: "E_HTTP_FETCH_BLOCKED",
    });
  });

  it("refuses a host when any of its addresses is private (DNS rebinding)", async () => {
    const { handlers, ctx, fetched } = harness({});
    await expect(Promise.resolve(handlers.get!(ctx, { url: "http://rebind.example/" }))).rejects.toMatchObject({
      code: "E_HTTP_FETCH_BLOCKED",
    });
    expect(fetched).toEqual([]);
  });

  it("reports a name that does not resolve", async () => {
    const { handlers, ctx } = harness({});
    await expect(Promise.resolve(handlers.get!(ctx, { url: "http://nowhere.example/" }))).rejects.toMatchObject({
      code: "E_HTTP_FETCH_DNS",
    });
  });

  it("drops Authorization when a redirect crosses origins", async () => {
    let seenAuth: string | null = "unset";
    const handlers = createHttpFetchHandlers({
      lookup,
      fetch: async (url, init) => {
        if (url === "http://93.184.215.14/")
          return new Response(null, { status: 302, headers: { location: "https://public.example/next" } });
        seenAuth = new Headers(init.headers as Record<string, string>).get("authorization");
        return new Response("ok");
      },
    });
    const ctx: ToolContext = {
      ...invocationContext(),
      toolCallId: "c1",
      signal: new AbortController().signal,
      config: {},
    };
    await handlers.get!(ctx, { url: "http://public.example/", headers: { Authorization: "Bearer secret" } });
    expect(seenAuth).toBeNull();
  });
});

describe("http-fetch connects to the address it checked (no DNS rebinding between check and connect)", () => {
  const ctx = (): ToolContext => ({
    ...invocationContext(),
    toolCallId: "c1",
    signal: new AbortController().signal,
    config: {},
  });

  it("sends an http request to the vetted IP with the original Host, never to what the name re-resolves to", async () => {
    // The injected check says "localhost" is public; the system resolver (which fetch would use) says loopback.
    const lookup: LookupAll = async () => [{ address: "93.184.215.14", family: 4 }];
    const sent: { url: string; host: string | null }[] = [];
    const fetchImpl: FetchLike = async (url, init) => {
      sent.push({ url, host: new Headers(init.headers as Record<string, string>).get("host") });
      // Anything addressed by name goes through the real resolver (here: to the loopback test server);
      // the vetted public IP is never contacted for real (tests stay on loopback).
      if (new URL(url).hostname === "localhost") return fetch(url, init);
      return new Response("reached the vetted address");
    };
    const hitsBefore = serverHits;
    const output = await createHttpFetchHandlers({ lookup, fetch: fetchImpl }).get!(ctx(), {
      url: `http://localhost:${server.port}/json`,
    });
    expect(serverHits - hitsBefore).toBe(0);
    expect(sent).toEqual([{ url: `http://93.184.215.14:${server.port}/json`, host: `localhost:${server.port}` }]);
    expect(output).toMatchObject({ url: `http://localhost:${server.port}/json`, body: "reached the vetted address" });
  });

  it("vets and pins every redirect hop, bracketing an IPv6 address", async () => {
    const sent: { url: string; host: string | null }[] = [];
    const dns: Record<string, string> = {
      "public.example": "93.184.215.14",
      "v6.example": "2606:2800:220:1:248:1893:25c8:1946",
    };
    const lookup: LookupAll = async (hostname) => [
      { address: dns[hostname]!, family: hostname.startsWith("v6") ? 6 : 4 },
    ];
    const fetchImpl: FetchLike = async (url, init) => {
      sent.push({ url, host: new Headers(init.headers as Record<string, string>).get("host") });
      if (sent.length === 1)
        return new Response(null, { status: 302, headers: { location: "http://v6.example:8080/next?q=1" } });
      return new Response("done");
    };
    await createHttpFetchHandlers({ lookup, fetch: fetchImpl }).get!(ctx(), { url: "http://public.example/start" });
    expect(sent).toEqual([
      { url: "http://93.184.215.14/start", host: "public.example" },
      { url: "http://[2606:2800:220:1:248:1893:25c8:1946]:8080/next?q=1", host: "v6.example:8080" },
    ]);
  });

  it("keeps the hostname for https (certificate verification binds the connection to the name)", async () => {
    const sent: { url: string; host: string | null }[] = [];
    const lookup: LookupAll = async () => [{ address: "93.184.215.14", family: 4 }];
    const fetchImpl: FetchLike = async (url, init) => {
      sent.push({ url, host: new Headers(init.headers as Record<string, string>).get("host") });
      return new Response("tls");
    };
    await createHttpFetchHandlers({ lookup, fetch: fetchImpl }).get!(ctx(), { url: "https://public.example/x" });
    expect(sent).toEqual([{ url: "https://public.example/x", host: null }]);
  });
});

describe("blockedAddressReason", () => {
  it("allows public addresses and blocks internal ones", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect({ address, reason: blockedAddressReason(address) }).toEqual({ address, reason: null });
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "100.127.0.1",
      "169.254.169.254",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fc00::1",
      "fd00:ec2::254",
      "fe80::1",
      "ff02::1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a9fe:a9fe",
      "2002:7f00:1::",
    ]) {
      expect({ address, blocked: blockedAddressReason(address) !== null }).toEqual({ address, blocked: true });
    }
    expect(blockedAddressReason("172.32.0.1")).toBeNull();
  });
});

describe("http-fetch timeouts", () => {
  it("gives up on a DNS lookup that never answers", async () => {
    const handlers = createHttpFetchHandlers({
      lookup: () => new Promise(() => {}),
      fetch: async () => new Response("unreachable"),
    });
    const ctx: ToolContext = {
      ...invocationContext(),
      toolCallId: "c1",
      signal: new AbortController().signal,
      config: {},
    };
    await expect(
      Promise.resolve(handlers.get!(ctx, { url: "http://slow-dns.example/", timeoutMs: 100 })),
    ).rejects.toMatchObject({ code: "E_HTTP_FETCH_TIMEOUT" });
  });
});
