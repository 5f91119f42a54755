/**
 * `goondan validate --probe-mcp` with real servers: the SDK fixture over stdio and over Streamable HTTP (its
 * token from the environment), and one that cannot start. Each reachable server's tools are listed as the model
 * would see them (allow-lists applied), a refused tool is a warning, an unreachable server an error (exit 3), an unset ValueSource
 * is named; every probed server is stopped again.
 */
import { describe, expect, it } from "bun:test";
import { main } from "../../src/cli/main.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { pidsWithCommandLine, until } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { startHttpFixture, stdioFixture } from "../fixtures/mcp/fixture-process.ts";
import { baseBundle, header, removeBundles, writeBundle } from "../config/temp-bundle.ts";

const defer = useCleanups();
defer(removeBundles);

function captureIo(cwd: string, env: Record<string, string>): CliIo & { out: () => string } {
  const out: string[] = [];
  return { stdout: (text) => void out.push(text), stderr: () => {}, env, cwd, out: () => out.join("") };
}

function bundleWith(servers: string): string {
  const agent = `${header("Agent", "a")}spec:\n  modelConfig: { modelRef: Model/m }\n  prompt: { system: hi }\n  extensions:\n    - ref: Extension/mcp\n      config:\n        servers:\n${servers}`;
  return writeBundle(baseBundle({ agent, files: { "tools/echo.ts": "export const handlers = { say: () => '' };\n" } }));
}

describe("goondan validate --probe-mcp", () => {
  it("lists each server's allow-listed tools as the model would see them and exits 0 when every server answers", async () => {
    const tag = `probe-${crypto.randomUUID()}`;
    const http = await startHttpFixture({ env: { FIXTURE_HTTP_TOKEN: "probe-token-123456" } });
    defer(() => http.stop());
    const stdio = stdioFixture("--bad-tool-name", "--tag", tag);
    const dir = bundleWith(
      `          local: { command: ${JSON.stringify(stdio.command)}, args: ${JSON.stringify(stdio.args)}, tools: [echo, add] }\n` +
        `          remote: { url: "${http.url}", headers: { Authorization: { valueFrom: { env: REMOTE_AUTH } } } }\n`,
    );
    const io = captureIo(dir, { REMOTE_AUTH: "Bearer probe-token-123456" });
    expect(await main(["validate", ".", "--probe-mcp", "--format", "json"], io)).toBe(0);
    const report = JSON.parse(io.out()) as {
      valid: boolean;
      warnings: { code: string; path: string }[];
      mcp: { server: string; ok: boolean; tools: string[]; path: string }[];
    };
    expect(report.valid).toBe(true);
    expect(report.mcp.map(({ server, ok, tools, path }) => ({ server, ok, tools: tools.slice(0, 2), path }))).toEqual([
      {
        server: "local",
        ok: true,
        tools: ["local__echo", "local__add"],
        path: "goondan.yaml#2.spec.extensions[0].config.servers.local",
      },
      {
        server: "remote",
        ok: true,
        tools: ["remote__echo", "remote__add"],
        path: "goondan.yaml#2.spec.extensions[0].config.servers.remote",
      },
    ]);
    expect(report.warnings).toEqual([]);
    // The server has exited when the probe returns; its guard (same tag on its command line) was SIGKILLed with it.
    await until(() => pidsWithCommandLine(tag).length === 0, { timeoutMs: 5_000 });
  }, 30_000);

  it("exits 3 naming the server that cannot start and the env var a server's header needs", async () => {
    const stdio = stdioFixture("--exit-at-start");
    const dir = bundleWith(
      `          broken: { command: ${JSON.stringify(stdio.command)}, args: ${JSON.stringify(stdio.args)} }\n` +
        `          remote: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: { valueFrom: { env: REMOTE_AUTH } } } }\n` +
        `          odd: { command: ${JSON.stringify(stdio.command)}, args: ${JSON.stringify([...stdioFixture("--bad-tool-name").args])} }\n`,
    );
    const io = captureIo(dir, {});
    expect(await main(["validate", ".", "--probe-mcp"], io)).toBe(3);
    const lines = io.out().split("\n");
    expect(lines.find((line) => line.includes("servers.broken: E_CONFIG_MCP_UNREACHABLE"))).toContain(
      "refusing to start",
    );
    expect(lines.find((line) => line.includes("servers.remote: E_CONFIG_MCP_UNREACHABLE"))).toContain(
      "env var is not set",
    );
    expect(lines.find((line) => line.includes("servers.odd: W_CONFIG_MCP_TOOL_REFUSED"))).toContain("bad.name");
    expect(lines.find((line) => line.includes("servers.odd: mcp server odd (stdio) lists 11 tools"))).toBeDefined();
    expect(lines.at(-2)).toMatch(/^invalid: .* \(2 errors, 1 warning\)$/);
  }, 30_000);
});
