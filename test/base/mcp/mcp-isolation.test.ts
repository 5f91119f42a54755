/**
 * The stdio transport's sandbox settings with a real fixture server: by default the server runs in a PID namespace
 * of its own (it is pid 2 there, after the namespace's init) with no network; where the machine gives no namespace,
 * `isolation: required` refuses to start it with E_MCP_ISOLATION_UNAVAILABLE and `auto` starts it as is with one
 * warning per process naming what it can then reach.
 */
import { describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  GuardedStdioTransport,
  resetUnisolatedWarning,
} from "../../../src/base/extensions/mcp/guarded-stdio-transport.ts";
import type { McpSandboxSpec } from "../../../src/base/extensions/mcp/server-spec.ts";
import { silentLogger, type Logger } from "../../../src/shared/logger.ts";
import { stdioFixture } from "../../fixtures/mcp/fixture-process.ts";
import { realProcessTimeouts } from "../../helpers/cleanups.ts";

realProcessTimeouts();

function transport(options: { sandbox: McpSandboxSpec; helperPath?: string; logger?: Logger }): GuardedStdioTransport {
  return new GuardedStdioTransport({
    ...stdioFixture(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    cwd: "/",
    secrets: [],
    logger: options.logger ?? silentLogger(),
    sandbox: options.sandbox,
    ...(options.helperPath === undefined ? {} : { sandboxHelperPath: options.helperPath }),
  });
}

async function serverPid(stdio: GuardedStdioTransport): Promise<number> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(stdio);
  try {
    const result = await client.callTool({ name: "pid", arguments: {} });
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
    return Number(/\d+/.exec(text)?.[0]);
  } finally {
    await client.close();
  }
}

/** A logger that records warn calls. */
function recordingLogger(warnings: unknown[]): Logger {
  const logger = silentLogger();
  return Object.assign(Object.create(logger) as Logger, {
    warn: (...args: unknown[]) => void warnings.push(args),
  });
}

describe("an MCP stdio server's sandbox", () => {
  it.skipIf(process.platform !== "linux")("runs the server in a PID namespace of its own by default", async () => {
    // pid 1 is the namespace's init; the server (exec'd by the guard's shell) comes next.
    expect(await serverPid(transport({ sandbox: { network: "none", isolation: "auto" } }))).toBeLessThan(10);
  });

  it("required: refuses to start the server where no namespace can be had", async () => {
    const stdio = transport({ sandbox: { network: "none", isolation: "required" }, helperPath: "/nonexistent" });
    await expect(stdio.start()).rejects.toMatchObject({ code: "E_MCP_ISOLATION_UNAVAILABLE" });
  });

  it("auto: starts it as is, with one warning per process naming what it can then reach", async () => {
    resetUnisolatedWarning();
    const warnings: unknown[] = [];
    for (let round = 0; round < 2; round += 1) {
      const stdio = transport({
        sandbox: { network: "none", isolation: "auto" },
        helperPath: "/nonexistent",
        logger: recordingLogger(warnings),
      });
      expect(await serverPid(stdio)).toBeGreaterThan(1);
    }
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain("unshare (util-linux / coreutils) is not installed");
    expect(JSON.stringify(warnings[0])).toContain("goondan.db");
  });
});
