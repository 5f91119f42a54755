/**
 * The `mcp` extension against the SDK-written fixture server over Streamable HTTP, a real process on 127.0.0.1:
 * headers (a bearer token) reach the server and never the logs, results and errors map as over stdio, timeouts
 * cancel at the server, list changes show, and a server that goes away answers E_MCP_UNAVAILABLE until it is
 * back, when the bridge reconnects with a new session.
 */
import { describe, expect, it } from "bun:test";
import { until } from "../../helpers/goondan-process.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { startHttpFixture, type HttpFixture } from "../../fixtures/mcp/fixture-process.ts";
import { errorOf, okOutput, startHarness } from "./mcp-harness.ts";

const defer = useCleanups();
const TOKEN = "fixture-http-token-7d1c";

async function httpFixture(port?: number): Promise<HttpFixture> {
  const fixture = await startHttpFixture({
    env: { FIXTURE_HTTP_TOKEN: TOKEN },
    ...(port === undefined ? {} : { port }),
  });
  defer(() => fixture.stop());
  return fixture;
}

describe("mcp over Streamable HTTP", () => {
  it("sends the configured headers and maps results and errors like any tool", async () => {
    const server = await httpFixture();
    const mcp = await startHarness({
      servers: { remote: { url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } } },
      defer,
    });
    expect(okOutput(await mcp.call("remote__echo", { text: "over http" }))).toBe("over http");
    expect(okOutput(await mcp.call("remote__add", { a: 1, b: 41 }))).toEqual({ sum: 42 });
    expect(errorOf(await mcp.call("remote__fail", { message: "nope" }))).toMatchObject({
      code: "E_MCP_TOOL_ERROR",
      message: "nope",
    });
    expect(mcp.logs.join("\n")).not.toContain(TOKEN);
  });

  it("reports a server that refuses the credentials as not connected, without the token in the reason or the logs", async () => {
    const server = await httpFixture();
    const wrong = "wrong-token-value-123";
    const mcp = await startHarness({
      servers: { remote: { url: server.url, headers: { Authorization: `Bearer ${wrong}` } } },
      defer,
    });
    const connection = mcp.bridge.connections.get("remote")!;
    expect(connection.status).toBe("backoff");
    expect(connection.failure).toContain("401");
    expect(`${connection.failure}\n${mcp.logs.join("\n")}`).not.toContain(wrong);
    expect(mcp.catalog()).toEqual([]);
  });

  it("cancels a call at the server when it times out", async () => {
    const server = await httpFixture();
    const mcp = await startHarness({
      servers: { remote: { url: server.url, headers: { Authorization: `Bearer ${TOKEN}` }, timeoutMs: 300 } },
      defer,
    });
    expect(errorOf(await mcp.call("remote__hang", {})).code).toBe("E_TOOL_TIMEOUT");
    await until(async () =>
      (okOutput(await mcp.call("remote__cancellations", {})) as { cancelled: unknown[] }).cancelled.length > 0
        ? true
        : undefined,
    );
  });

  it("updates the catalog when the server's tool list changes", async () => {
    const server = await httpFixture();
    const mcp = await startHarness({
      servers: { remote: { url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } } },
      defer,
    });
    expect(okOutput(await mcp.call("remote__toggle_extra", {}))).toBe("extra added");
    expect(mcp.catalog().map((item) => item.name)).toContain("remote__extra");
    expect(okOutput(await mcp.call("remote__extra", {}))).toBe("extra ran");
  });

  it("ends its session at the server when it stops", async () => {
    const server = await httpFixture();
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const watcher = await startHarness({ servers: { remote: { url: server.url, headers } }, defer });
    const mcp = await startHarness({ servers: { remote: { url: server.url, headers } }, defer });
    expect(okOutput(await watcher.call("remote__sessions", {}))).toEqual({ open: 2 });
    await mcp.bridge.stop();
    expect(okOutput(await watcher.call("remote__sessions", {}))).toEqual({ open: 1 });
  });

  it("answers E_MCP_UNAVAILABLE while the server is gone and reconnects when it is back", async () => {
    const first = await httpFixture();
    const port = Number(new URL(first.url).port);
    const mcp = await startHarness({
      servers: { remote: { url: first.url, headers: { Authorization: `Bearer ${TOKEN}` } } },
      defer,
    });
    await first.stop();
    expect(errorOf(await mcp.call("remote__echo", { text: "anyone?" })).code).toBe("E_MCP_UNAVAILABLE");
    expect(mcp.registry.has("remote__echo")).toBe(true);
    await httpFixture(port);
    const connection = mcp.bridge.connections.get("remote")!;
    await until(() => connection.status === "ready", { timeoutMs: 10_000 });
    expect(okOutput(await mcp.call("remote__echo", { text: "again" }))).toBe("again");
  });
});
