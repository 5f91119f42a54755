/**
 * The studio's routes in process (api-fixture.ts, a real Orchestrator on the fake spawner, with a token): the page
 * and its built script and stylesheet are open, served with the page's CSP and framing refused, the script one
 * bundle with no import left to fetch; a file the build did not make is 404; the data routes it reads
 * (`/v1/swarm`, `/v1/traces/:traceId`, its spans, `/v1/instances/:agent/:key/messages`, `/metrics`) need the token
 * and check their input; a daemon without metrics answers 404 on /metrics.
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
    expect(await page.text()).toContain('<script type="module" src="/studio/app.js">');
    for (const asset of ["app.js", "studio.css"]) {
      const response = await request("GET", `/studio/${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain(asset.endsWith(".css") ? "text/css" : "text/javascript");
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    }
    const script = await (await request("GET", "/studio/app.js")).text();
    // One bundle: Preact and the rest are inside it; nothing is imported from anywhere at run time.
    // (toBe(false), not a matcher that prints the 180 KB bundle when it fails.)
    expect(/\bimport\s*[("'{*]|\bfrom\s*["']/.test(script)).toBe(false);
    for (const gone of ["main.js", "api.js", "secret.ts"])
      expect((await bodyOf(await request("GET", `/studio/${gone}`))).error.code).toBe("E_API_NOT_FOUND");
    expect((await request("GET", "/studio/..%2F..%2Fhttp-api.ts")).status).toBe(404);
  });

  it("keeps the data routes behind the token and checks their input", async () => {
    const { request } = apiFixture({ token });
    expect((await request("GET", "/v1/traces/0123456789abcdef0123456789abcdef")).status).toBe(401);
    expect((await request("GET", "/v1/instances/a/k/messages")).status).toBe(401);
    expect((await request("GET", "/metrics")).status).toBe(401);
    expect((await request("GET", "/v1/swarm")).status).toBe(401);
    expect((await request("GET", "/v1/traces/0123456789abcdef0123456789abcdef/spans/0123456789abcdef")).status).toBe(
      401,
    );
    const badSpan = await request("GET", "/v1/traces/0123456789abcdef0123456789abcdef/spans/zz", undefined, auth);
    expect(badSpan.status).toBe(400);
    expect((await bodyOf(badSpan)).error.message).toContain("spanId");
    const noSpan = await request(
      "GET",
      "/v1/traces/0123456789abcdef0123456789abcdef/spans/0123456789abcdef",
      undefined,
      auth,
    );
    expect((await bodyOf(noSpan)).error.code).toBe("E_SPAN_NOT_FOUND");
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
