/**
 * The `mcp` extension against the SDK-written fixture server over stdio, a real child process: tools named
 * `<server>__<tool>` with the server's schema, results mapped to ToolResult, errors, timeouts with cancellation
 * sent to the server, a tool list that changes, a server that dies and comes back, one that cannot start.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive, until } from "../../helpers/goondan-process.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { stdioFixture } from "../../fixtures/mcp/fixture-process.ts";
import { errorOf, okOutput, startHarness } from "./mcp-harness.ts";

const defer = useCleanups();

describe("mcp over stdio", () => {
  it("offers the server's tools as <server>__<tool> with their JSON Schema and an mcp source", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture() }, defer });
    const echo = mcp.catalog().find((item) => item.name === "fixture__echo");
    expect(echo).toEqual({
      name: "fixture__echo",
      description: "Echo the text back.",
      parameters: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
        additionalProperties: false,
      },
      source: { type: "mcp", name: "mcp", mcp: { extensionName: "mcp", serverName: "fixture" } },
    });
    expect(mcp.catalog().map((item) => item.name)).toContain("fixture__toggle_extra");
  });

  it("answers text as the output, structured content as an object", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture() }, defer });
    expect(okOutput(await mcp.call("fixture__echo", { text: "hello" }))).toBe("hello");
    expect(okOutput(await mcp.call("fixture__add", { a: 2, b: 3 }))).toEqual({ sum: 5 });
  });

  it("turns isError into E_MCP_TOOL_ERROR, cut to the error message limit by the one formatter", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture() }, defer });
    expect(errorOf(await mcp.call("fixture__fail", { message: "disk on fire" }))).toMatchObject({
      code: "E_MCP_TOOL_ERROR",
      name: "McpToolError",
      message: "disk on fire",
    });
    const long = errorOf(await mcp.call("fixture__fail", { message: "x".repeat(5000) }));
    expect(long.message).toHaveLength(1000);
    expect(long.message.endsWith("... (truncated)")).toBe(true);
  });

  it("validates arguments against the server's schema before the server sees them", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture() }, defer });
    expect(errorOf(await mcp.call("fixture__add", { a: "two" })).code).toBe("E_TOOL_INVALID_ARGS");
  });

  it("ends a call past timeoutMs with E_TOOL_TIMEOUT and sends the cancellation to the server", async () => {
    const mcp = await startHarness({ servers: { fixture: { ...stdioFixture(), timeoutMs: 300 } }, defer });
    expect(errorOf(await mcp.call("fixture__hang", {})).code).toBe("E_TOOL_TIMEOUT");
    const seen = await until(async () => {
      const output = okOutput(await mcp.call("fixture__cancellations", {})) as {
        cancelled: { tool: string; reason: string }[];
      };
      return output.cancelled.length > 0 ? output.cancelled : undefined;
    });
    expect(seen[0]?.tool).toBe("hang");
    expect(seen[0]?.reason).toContain("timed out");
  });

  it("sends the cancellation to the server when the agent shuts down mid-call", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture() }, defer });
    const shutdown = new AbortController();
    const pending = mcp.call("fixture__hang", {}, { signal: shutdown.signal });
    await Bun.sleep(100);
    shutdown.abort();
    expect(errorOf(await pending).code).toBe("E_TOOL_CANCELLED");
    await until(async () =>
      (okOutput(await mcp.call("fixture__cancellations", {})) as { cancelled: unknown[] }).cancelled.length > 0
        ? true
        : undefined,
    );
  });

  it("shows a tool the server added (list_changed) by the time the call that added it returns, and drops it when removed", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture() }, defer });
    expect(mcp.registry.has("fixture__extra")).toBe(false);
    expect(okOutput(await mcp.call("fixture__toggle_extra", {}))).toBe("extra added");
    expect(mcp.catalog().map((item) => item.name)).toContain("fixture__extra");
    expect(okOutput(await mcp.call("fixture__extra", {}))).toBe("extra ran");
    expect(okOutput(await mcp.call("fixture__toggle_extra", {}))).toBe("extra removed");
    expect(mcp.catalog().map((item) => item.name)).not.toContain("fixture__extra");
    expect(errorOf(await mcp.call("fixture__extra", {})).code).toBe("E_TOOL_NOT_FOUND");
  });

  it("answers E_MCP_UNAVAILABLE when the server dies mid-call, then restarts it and keeps its tools", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture() }, defer });
    const connection = mcp.bridge.connections.get("fixture")!;
    const firstPid = connection.pid!;
    const crashed = errorOf(await mcp.call("fixture__crash", {}));
    expect(crashed).toMatchObject({ code: "E_MCP_UNAVAILABLE", name: "McpUnavailableError" });
    expect(crashed.message).toContain("exited with code 3");
    await until(() => connection.status === "ready" && connection.pid !== firstPid, { timeoutMs: 10_000 });
    expect(isAlive(firstPid)).toBe(false);
    expect(okOutput(await mcp.call("fixture__echo", { text: "back" }))).toBe("back");
    expect(mcp.logs.some((line) => line.includes("MCP server stopped; restarting it with backoff"))).toBe(true);
  });

  it("answers E_MCP_UNAVAILABLE with the reason and the next attempt while a dead server cannot be restarted", async () => {
    const markerDir = mkdtempSync(join(tmpdir(), "goondan-mcp-once-"));
    defer(() => rmSync(markerDir, { recursive: true, force: true }));
    const marker = join(markerDir, "started");
    const mcp = await startHarness({
      servers: { fixture: stdioFixture("--start-once", marker) },
      defer,
      backoff: { initialMs: 2_000, maxMs: 2_000, stableMs: 60_000 },
    });
    expect(errorOf(await mcp.call("fixture__crash", {})).code).toBe("E_MCP_UNAVAILABLE");
    const connection = mcp.bridge.connections.get("fixture")!;
    await until(() => connection.failure?.includes("refusing to start"), { timeoutMs: 10_000 });
    const refused = errorOf(await mcp.call("fixture__echo", { text: "still there?" }));
    expect(refused).toMatchObject({ code: "E_MCP_UNAVAILABLE" });
    expect(refused.message).toContain("refusing to start");
    expect(refused.suggestion).toMatch(/goondan tries again in \d+ s/);
  });

  it("keeps the agent going when a server cannot start: no tools from it, the reason logged, retried with backoff", async () => {
    const mcp = await startHarness({
      servers: { broken: stdioFixture("--exit-at-start"), fixture: stdioFixture() },
      defer,
    });
    const broken = mcp.bridge.connections.get("broken")!;
    expect(mcp.catalog().some((item) => item.name.startsWith("broken__"))).toBe(false);
    expect(mcp.catalog().some((item) => item.name === "fixture__echo")).toBe(true);
    expect(broken.failure).toContain("exited with code 2");
    expect(broken.failure).toContain("refusing to start");
    const warnings = mcp.logs.filter((line) => line.includes("could not be started"));
    await until(() => mcp.logs.filter((line) => line.includes("could not be started")).length > warnings.length, {
      timeoutMs: 5_000,
    });
  });

  it("offers only the allow-listed tools and reports an allow-listed name the server lacks", async () => {
    const mcp = await startHarness({ servers: { fixture: { ...stdioFixture(), tools: ["echo", "ecko"] } }, defer });
    expect(mcp.catalog().map((item) => item.name)).toEqual(["fixture__echo"]);
    expect(mcp.logs.some((line) => line.includes("ecko") && line.includes("offers no such tool"))).toBe(true);
  });

  it("refuses a tool whose name the model cannot take, with the reason", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture("--bad-tool-name") }, defer });
    expect(mcp.registry.names().some((name) => name.includes("bad"))).toBe(false);
    const refusal = mcp.logs.find((line) => line.includes("bad.name"));
    expect(refusal).toContain("not a name models accept");
  });

  it("stops the server's whole process group when the bridge stops", async () => {
    const mcp = await startHarness({ servers: { fixture: stdioFixture() }, defer });
    const pid = mcp.bridge.connections.get("fixture")!.pid!;
    expect(isAlive(pid)).toBe(true);
    await mcp.bridge.stop();
    expect(isAlive(pid)).toBe(false);
    expect(mcp.registry.names()).toEqual([]);
  });
});
