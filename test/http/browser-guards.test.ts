/**
 * What keeps a web page from driving the agents (issue 11 item 1), in process: JSON-only bodies, the Origin and
 * Sec-Fetch-Site check with its allow-list and CORS, the Host check against DNS rebinding, and their order before
 * the token. Each refusal is a coded JSON 4xx and accepts nothing. (The same attacks against a real `goondan run`
 * are in browser-guards-run.integration.test.ts.)
 */
import { describe, expect, it } from "bun:test";
import { apiFixture, bodyOf } from "./api-fixture.ts";

const expectCode = async (response: Response, status: number, code: string) => {
  expect(response.status).toBe(status);
  expect((await bodyOf(response)).error.code).toBe(code);
};

describe("JSON-only bodies", () => {
  it.each([
    ["text/plain", "text/plain"],
    ["text/plain with a charset", "text/plain;charset=UTF-8"],
    ["a form", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=x"],
    ["JSON in UTF-16", "application/json; charset=utf-16"],
    ["a JSON look-alike", "application/json-seq"],
  ])("refuses %s with 415 and accepts nothing", async (_name, type) => {
    const { request, orchestrator } = apiFixture();
    await expectCode(
      await request("POST", "/v1/events", { input: "hello" }, { "content-type": type }),
      415,
      "E_API_UNSUPPORTED_MEDIA_TYPE",
    );
    expect(await orchestrator.instances()).toEqual([]);
  });

  it("refuses a body without a Content-Type with 415", async () => {
    const { handle, orchestrator } = apiFixture();
    const response = await handle(
      new Request("http://127.0.0.1/v1/events", {
        method: "POST",
        body: new Blob([JSON.stringify({ input: "hello" })]),
      }),
    );
    await expectCode(response, 415, "E_API_UNSUPPORTED_MEDIA_TYPE");
    expect(await orchestrator.instances()).toEqual([]);
  });

  it("takes application/json with a UTF-8 charset and application/*+json", async () => {
    const { request } = apiFixture();
    for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/vnd.goondan+json"]) {
      expect((await request("POST", "/v1/events", { input: "hello" }, { "content-type": type })).status).toBe(202);
    }
  });

  it("refuses a form-typed empty POST /v1/restart (what a cross-site form sends) and restarts nothing", async () => {
    let asked = 0;
    const { request } = apiFixture({ restart: async () => (asked++, { accepted: true, issues: [] }) });
    await expectCode(
      await request("POST", "/v1/restart", "", { "content-type": "application/x-www-form-urlencoded" }),
      415,
      "E_API_UNSUPPORTED_MEDIA_TYPE",
    );
    expect(asked).toBe(0);
    const { handle } = apiFixture({ restart: async () => (asked++, { accepted: true, issues: [] }) });
    expect((await handle(new Request("http://127.0.0.1/v1/restart", { method: "POST" }))).status).toBe(202); // no body, no type: a program
    expect(asked).toBe(1);
  });
});

describe("Origin and Sec-Fetch-Site", () => {
  it.each([
    ["another site's Origin", { origin: "http://evil.example" }],
    ["an opaque Origin", { origin: "null" }],
    ["the API's address on another port", { origin: "http://127.0.0.1:3000" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site: same-site", { "sec-fetch-site": "same-site" }],
    [
      "a same-looking Origin with Sec-Fetch-Site: cross-site",
      { origin: "http://127.0.0.1", "sec-fetch-site": "cross-site" },
    ],
  ])("refuses %s with 403 E_API_ORIGIN_FORBIDDEN, on reads and writes, and accepts nothing", async (_name, headers) => {
    const { request, orchestrator } = apiFixture();
    await expectCode(await request("POST", "/v1/events", { input: "hello" }, headers), 403, "E_API_ORIGIN_FORBIDDEN");
    await expectCode(await request("GET", "/v1/processes", undefined, headers), 403, "E_API_ORIGIN_FORBIDDEN");
    expect(await orchestrator.instances()).toEqual([]);
  });

  it("serves programs (no Origin), the API's own pages and what the user typed in the address bar", async () => {
    const { request } = apiFixture();
    for (const headers of [
      {},
      { origin: "http://127.0.0.1" },
      { origin: "https://127.0.0.1" },
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
    ] as Record<string, string>[]) {
      expect((await request("GET", "/v1/processes", undefined, headers)).status).toBe(200);
    }
  });

  it("serves an allowed origin with CORS headers and answers its preflight", async () => {
    const { request } = apiFixture({ allowedOrigins: ["http://localhost:5173"] });
    const preflight = await request("OPTIONS", "/v1/events", undefined, {
      origin: "http://localhost:5173",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");
    // A page's resumed stream (the typed client's watch) sends Last-Event-ID.
    expect(preflight.headers.get("access-control-allow-headers")).toContain("last-event-id");
    const posted = await request(
      "POST",
      "/v1/events",
      { input: "hello" },
      { origin: "http://localhost:5173", "sec-fetch-site": "same-site" },
    );
    expect(posted.status).toBe(202);
    expect(posted.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    const refused = await request("OPTIONS", "/v1/events", undefined, {
      origin: "http://localhost:5174",
      "access-control-request-method": "POST",
    });
    await expectCode(refused, 403, "E_API_ORIGIN_FORBIDDEN");
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("keeps the allowed origin's token requirement: CORS does not stand in for the token", async () => {
    const { request } = apiFixture({ allowedOrigins: ["http://localhost:5173"], token: "s3cret" });
    await expectCode(
      await request("GET", "/v1/processes", undefined, { origin: "http://localhost:5173" }),
      401,
      "E_API_UNAUTHORIZED",
    );
    expect(
      (
        await request("GET", "/v1/processes", undefined, {
          origin: "http://localhost:5173",
          authorization: "Bearer s3cret",
        })
      ).status,
    ).toBe(200);
  });
});

describe("Host", () => {
  it.each([
    ["a rebinding page's name", "attacker.example:8790"],
    ["a name with a trailing dot", "attacker.example.:8790"],
    ["a name made to look local", "localhost.attacker.example"],
    ["another IP than the loopback one bound", "10.1.2.3:8790"],
    ["garbage", "127.0.0.1/evil"],
  ])("refuses %s with 403 E_API_HOST_FORBIDDEN and accepts nothing", async (_name, host) => {
    const { request, orchestrator } = apiFixture({ host: "127.0.0.1" });
    await expectCode(await request("POST", "/v1/events", { input: "hello" }, { host }), 403, "E_API_HOST_FORBIDDEN");
    expect(await orchestrator.instances()).toEqual([]);
  });

  it("answers the bound address on any port, localhost and loopback literals", async () => {
    const { request } = apiFixture({ host: "127.0.0.1" });
    for (const host of ["127.0.0.1:8790", "127.0.0.1:1234", "localhost:8790", "LOCALHOST", "[::1]:8790", "127.0.0.2"]) {
      expect((await request("GET", "/healthz", undefined, { host })).status).toBe(200);
    }
  });

  it("answers the names the operator lists, or any with *", async () => {
    const listed = apiFixture({ host: "127.0.0.1", allowedHosts: ["goondan.internal"] });
    expect((await listed.request("GET", "/healthz", undefined, { host: "goondan.internal:8790" })).status).toBe(200);
    await expectCode(
      await listed.request("GET", "/healthz", undefined, { host: "other.internal:8790" }),
      403,
      "E_API_HOST_FORBIDDEN",
    );
    const any = apiFixture({ host: "127.0.0.1", allowedHosts: ["*"] });
    expect((await any.request("GET", "/healthz", undefined, { host: "whatever.example" })).status).toBe(200);
  });

  it("bound to a wildcard, answers any IP literal but still no unlisted name", async () => {
    const { request } = apiFixture({ host: "0.0.0.0", token: "t" });
    for (const host of ["10.1.2.3:8790", "[fd00::1]:8790", "localhost"])
      expect((await request("GET", "/healthz", undefined, { host })).status).toBe(200);
    await expectCode(
      await request("GET", "/healthz", undefined, { host: "attacker.example" }),
      403,
      "E_API_HOST_FORBIDDEN",
    );
  });

  it("bound to a network address, answers that address", async () => {
    const { request } = apiFixture({ host: "192.168.1.5", token: "t" });
    expect((await request("GET", "/healthz", undefined, { host: "192.168.1.5:8790" })).status).toBe(200);
    await expectCode(
      await request("GET", "/healthz", undefined, { host: "192.168.1.6:8790" }),
      403,
      "E_API_HOST_FORBIDDEN",
    );
  });
});

describe("order of the checks", () => {
  it("checks Host, then Origin, then the token, before any route; /healthz stays open to the token only", async () => {
    const { request } = apiFixture({ token: "s3cret" });
    await expectCode(
      await request("GET", "/healthz", undefined, { host: "attacker.example" }),
      403,
      "E_API_HOST_FORBIDDEN",
    );
    await expectCode(
      await request("GET", "/healthz", undefined, { origin: "http://evil.example" }),
      403,
      "E_API_ORIGIN_FORBIDDEN",
    );
    await expectCode(await request("GET", "/v2/unknown"), 401, "E_API_UNAUTHORIZED");
    await expectCode(
      await request("GET", "/v2/unknown", undefined, { authorization: "Bearer s3cret" }),
      404,
      "E_API_NOT_FOUND",
    );
    const unauthenticated = await request("POST", "/v1/events", { input: "x" }, { authorization: "Bearer wrong" });
    await expectCode(unauthenticated, 401, "E_API_UNAUTHORIZED");
    expect(unauthenticated.headers.get("www-authenticate")).toBe("Bearer");
  });
});
