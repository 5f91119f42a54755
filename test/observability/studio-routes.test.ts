/**
 * The studio's routes in process (api-fixture.ts, a real Orchestrator on the fake spawner, with a token): the page
 * and its assets are open, served with the page's CSP and framing refused; an asset that does not ship is 404;
 * the data routes it reads (`/v1/traces/:traceId`, `/v1/instances/:agent/:key/messages`, `/metrics`) need the
 * token and check their input; a daemon without metrics answers 404 on /metrics.
 */
import { describe, expect, it } from "bun:test";
import { apiFixture, bodyOf } from "../http/api-fixture.ts";

const token = "t0k";
const auth = { authorization: `Bearer ${token}` };

describe("the studio's routes", () => {
  it("serves the page and its assets without the token, with a strict CSP", async () => {
    const { request } = apiFixture({ token });
    const page = await request("GET", "/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(await page.text()).toContain('<script type="module" src="/studio/main.js">');
    for (const asset of [
      "main.js",
      "api.js",
      "graph.js",
      "trace-view.js",
      "send-box.js",
      "runtime-feed.js",
      "studio.css",
    ]) {
      const response = await request("GET", `/studio/${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain(asset.endsWith(".css") ? "text/css" : "text/javascript");
    }
    expect((await bodyOf(await request("GET", "/studio/secret.ts"))).error.code).toBe("E_API_NOT_FOUND");
    expect((await request("GET", "/studio/..%2F..%2Fhttp-api.ts")).status).toBe(404);
  });

  it("keeps the data routes behind the token and checks their input", async () => {
    const { request } = apiFixture({ token });
    expect((await request("GET", "/v1/traces/0123456789abcdef0123456789abcdef")).status).toBe(401);
    expect((await request("GET", "/v1/instances/a/k/messages")).status).toBe(401);
    expect((await request("GET", "/metrics")).status).toBe(401);
    const missing = await request("GET", "/v1/traces/0123456789abcdef0123456789abcdef", undefined, auth);
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error.code).toBe("E_TRACE_NOT_FOUND");
    const bad = await request("GET", "/v1/traces/not-a-trace", undefined, auth);
    expect(bad.status).toBe(400);
    expect((await bodyOf(bad)).error.message).toContain("traceId");
    expect((await bodyOf(await request("GET", "/v1/instances/zed/k/messages", undefined, auth))).error.code).toBe(
      "E_AGENT_NOT_FOUND",
    );
    expect((await bodyOf(await request("GET", "/v1/instances/a/k/messages", undefined, auth))).error.code).toBe(
      "E_INSTANCE_NOT_FOUND",
    );
    expect((await bodyOf(await request("GET", "/metrics", undefined, auth))).error.code).toBe("E_API_NOT_FOUND");
  });
});
