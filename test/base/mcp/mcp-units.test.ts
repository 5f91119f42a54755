/**
 * The `mcp` extension's pure parts: reading a server's config, naming its tools, mapping call results, redacting
 * secrets from text, and the restart backoff (with a manual clock and a transport that never connects).
 */
import { describe, expect, it } from "bun:test";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { callResultOutput } from "../../../src/base/extensions/mcp/call-result.ts";
import { redactSecrets } from "../../../src/shared/redact-secrets.ts";
import { McpServerConnection } from "../../../src/base/extensions/mcp/server-connection.ts";
import { readServerSpecs } from "../../../src/base/extensions/mcp/server-spec.ts";
import { serverToolItems } from "../../../src/base/extensions/mcp/server-tools.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { until } from "../../helpers/goondan-process.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
};

describe("readServerSpecs", () => {
  it("reads a stdio server with defaults: args [], cwd the bundle directory, 60 s calls, 10 s connect, no network, isolated where possible", () => {
    expect(readServerSpecs({ servers: { files: { command: "npx" } } }, { bundleDir: "/bundle" })).toEqual([
      {
        name: "files",
        transport: {
          type: "stdio",
          command: "npx",
          args: [],
          env: {},
          cwd: "/bundle",
          sandbox: { network: "none", isolation: "auto" },
        },
        timeoutMs: 60_000,
        connectTimeoutMs: 10_000,
        secrets: [],
      },
    ]);
  });

  it("reads the sandbox settings (network, isolation) and hides the state root it is given", () => {
    const [server] = readServerSpecs(
      { servers: { a: { command: "srv", network: "host", isolation: "required" } } },
      { bundleDir: "/bundle", stateRoot: "/state" },
    );
    expect(server?.transport).toMatchObject({ sandbox: { network: "host", isolation: "required", hide: "/state" } });
  });

  it("reads a relative cwd against the bundle directory and keeps env and header values as secrets", () => {
    const [stdio, http] = readServerSpecs(
      {
        servers: {
          a: { command: "srv", cwd: "data", env: { TOKEN: "s3cret-value" } },
          b: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer abcdef" }, tools: ["x"], timeoutMs: 5 },
        },
      },
      { bundleDir: "/bundle" },
    );
    expect(stdio?.transport).toMatchObject({ cwd: "/bundle/data", env: { TOKEN: "s3cret-value" } });
    expect(stdio?.secrets).toEqual(["s3cret-value"]);
    expect(http).toMatchObject({
      transport: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer abcdef" } },
      tools: ["x"],
      timeoutMs: 5,
      secrets: ["Bearer abcdef"],
    });
  });

  it("refuses a server with both or neither of command and url, and an env ValueSource that resolved to nothing", () => {
    expect(
      codeOf(() => readServerSpecs({ servers: { a: { command: "x", url: "http://h" } } }, { bundleDir: "/" })),
    ).toBe("E_CONFIG_SCHEMA_INVALID");
    expect(codeOf(() => readServerSpecs({ servers: { a: {} } }, { bundleDir: "/" }))).toBe("E_CONFIG_SCHEMA_INVALID");
    expect(
      codeOf(() => readServerSpecs({ servers: { a: { command: "x", env: { TOKEN: null } } } }, { bundleDir: "/" })),
    ).toBe("E_CONFIG_ENV_MISSING");
  });
});

describe("serverToolItems", () => {
  const tool = (
    name: string,
    inputSchema: Record<string, unknown> = { type: "object" },
    extra: Record<string, unknown> = {},
  ) => ({ name, inputSchema, ...extra }) as never;

  it("names tools <server>__<tool>, drops $schema, and falls back to the title for the description", () => {
    const { items } = serverToolItems({
      extensionName: "mcp",
      serverName: "files",
      tools: [
        tool(
          "read_file",
          {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            properties: { path: { type: "string" } },
          },
          { title: "Read a file" },
        ),
      ],
    });
    expect(items[0]?.item).toEqual({
      name: "files__read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      source: { type: "mcp", name: "mcp", mcp: { extensionName: "mcp", serverName: "files" } },
    });
  });

  it("refuses names models cannot take and schemas that do not compile", () => {
    const { items, refused } = serverToolItems({
      extensionName: "mcp",
      serverName: "s",
      tools: [
        tool("a.b"),
        tool("x".repeat(70)),
        tool("bad_schema", { type: "object", properties: { n: { type: "nonsense" } } }),
        tool("ok"),
      ],
    });
    expect(items.map((entry) => entry.toolName)).toEqual(["ok"]);
    expect(refused.map((entry) => entry.tool)).toEqual(["a.b", "x".repeat(70), "bad_schema"]);
    expect(refused[2]?.reason).toContain("not a valid JSON Schema");
  });

  it("takes a tool as idempotent when the server hints it only reads or may run twice", () => {
    const { items } = serverToolItems({
      extensionName: "mcp",
      serverName: "s",
      tools: [
        tool("reads", undefined, { annotations: { readOnlyHint: true } }),
        tool("repeats", undefined, { annotations: { idempotentHint: true, destructiveHint: true } }),
        tool("acts", undefined, { annotations: { readOnlyHint: false } }),
        tool("silent"),
      ],
    });
    expect(items.map((entry) => [entry.toolName, entry.idempotent])).toEqual([
      ["reads", true],
      ["repeats", true],
      ["acts", false],
      ["silent", false],
    ]);
  });
});

describe("callResultOutput", () => {
  const where = { server: "s", tool: "t" };

  it("joins text blocks, prefers structured content, and passes the legacy toolResult through", () => {
    expect(
      callResultOutput(
        {
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        where,
      ),
    ).toBe("a\nb");
    expect(callResultOutput({ content: [{ type: "text", text: "{}" }], structuredContent: { n: 1 } }, where)).toEqual({
      n: 1,
    });
    expect(callResultOutput({ toolResult: { legacy: true } }, where)).toEqual({ legacy: true });
  });

  it("describes binary content instead of inlining it, and keeps resource text and links", () => {
    const output = callResultOutput(
      {
        content: [
          { type: "text", text: "here" },
          { type: "image", data: "A".repeat(400), mimeType: "image/png" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
          { type: "resource_link", uri: "file:///b", name: "b" },
        ],
      },
      where,
    );
    expect(output).toEqual({
      content: [
        { type: "text", text: "here" },
        { type: "image", mimeType: "image/png", omitted: "binary content of about 300 bytes, not shown" },
        { type: "resource", uri: "file:///a.txt", text: "inside" },
        { type: "resource_link", uri: "file:///b", name: "b" },
      ],
    });
  });

  it("throws E_MCP_TOOL_ERROR for isError, with the server's text or a plain default", () => {
    expect(codeOf(() => callResultOutput({ content: [{ type: "text", text: "boom" }], isError: true }, where))).toBe(
      "E_MCP_TOOL_ERROR",
    );
    expect(() => callResultOutput({ content: [], isError: true }, where)).toThrow(
      "s/t reported an error without a message",
    );
  });
});

describe("redactSecrets", () => {
  it("replaces every occurrence of each secret", () => {
    expect(redactSecrets("token=abc123 again abc123, key=zzz999", ["abc123", "zzz999"])).toBe(
      "token=[redacted] again [redacted], key=[redacted]",
    );
  });
});

describe("McpServerConnection restart backoff", () => {
  it("retries a server that never connects after 50, 100, 200 ms, capped at maxMs", async () => {
    const clock = new ManualClock();
    let attempts = 0;
    const neverStarts = (): Transport => ({
      start: async () => {
        attempts += 1;
        throw new Error("spawn failed");
      },
      send: async () => {},
      close: async () => {},
    });
    const connection = new McpServerConnection({
      spec: {
        name: "s",
        transport: { type: "http", url: "http://127.0.0.1:1/mcp", headers: {} },
        timeoutMs: 1000,
        connectTimeoutMs: 1000,
        secrets: [],
      },
      logger: silentLogger(),
      onTools: () => {},
      clock,
      backoff: { initialMs: 50, maxMs: 200, stableMs: 10_000 },
      createTransport: neverStarts,
    });
    await connection.start();
    const delays: number[] = [];
    for (let round = 0; round < 4; round++) {
      const [delay] = clock.pendingDelays();
      delays.push(delay ?? -1);
      clock.advance(delay ?? 0);
      // The retry's attempt fails asynchronously, then schedules the next one.
      await until(() => clock.pendingDelays().length === 1);
    }
    expect(delays).toEqual([50, 100, 200, 200]);
    expect(attempts).toBe(5);
    expect(connection.failure).toContain("spawn failed");
    await connection.stop();
    expect(clock.pendingDelays()).toEqual([]);
  });
});
