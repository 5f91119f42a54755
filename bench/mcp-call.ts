/**
 * What calling a tool through an MCP server costs over calling a direct (in-process) tool, for stdio and for
 * Streamable HTTP on 127.0.0.1, measured in one run against two floors: the direct tool through the same
 * executeToolCall (catalog gate, ajv, result wrapping), and the SDK's bare `client.callTool` to the same server
 * (the wire and the server themselves, without goondan). The server is the SDK-written test fixture's `echo`.
 * Calls are interleaved in batches after a warm-up. Prints p50/p99 of each, MCP overhead over the direct tool,
 * and goondan's own share over the bare SDK call (goal: p50 under 0.5 ms).
 * Run: npx bun bench/mcp-call.ts [iterations] (default 2000)
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startMcpBridge } from "../src/base/extensions/mcp/mcp-bridge.ts";
import { GuardedStdioTransport } from "../src/base/extensions/mcp/guarded-stdio-transport.ts";
import { readServerSpecs } from "../src/base/extensions/mcp/server-spec.ts";
import { silentLogger } from "../src/shared/logger.ts";
import { executeToolCall } from "../src/tools/execute-tool-call.ts";
import { buildCatalog } from "../src/tools/tool-catalog.ts";
import { ToolRegistry } from "../src/tools/tool-registry.ts";
import { startHttpFixture, stdioFixture } from "../test/fixtures/mcp/fixture-process.ts";
import { invocationContext } from "../test/tools/helpers.ts";
import { percentile } from "./support/percentile.ts";

const ITERATIONS = Number(process.argv[2] ?? 2000);
const WARMUP = Math.min(200, ITERATIONS);
const BATCH = 100;
const TARGET_GOONDAN_SHARE_P50_MS = 0.5;

const http = await startHttpFixture();
const stdio = stdioFixture();
const registry = new ToolRegistry();
registry.register(
  {
    name: "direct__echo",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
  },
  (_ctx, input) => String(input.text),
);
const bridge = startMcpBridge({
  extensionName: "mcp",
  servers: readServerSpecs({ servers: { local: stdio, remote: { url: http.url } } }, { bundleDir: process.cwd() }),
  tools: {
    register: (item, handler, options) =>
      registry.register(item, handler, {
        ...(options?.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      }),
    unregister: (name) => registry.unregister(name),
  },
  logger: silentLogger(),
});
await bridge.started;
const catalog = buildCatalog({ registry, agentTools: [] });

// The floors' own clients: the same transports, the SDK alone.
const bareStdio = new Client({ name: "bench", version: "1" });
await bareStdio.connect(
  new GuardedStdioTransport({
    ...stdio,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    cwd: process.cwd(),
    secrets: [],
    logger: silentLogger(),
  }),
);
const bareHttp = new Client({ name: "bench", version: "1" });
await bareHttp.connect(new StreamableHTTPClientTransport(new URL(http.url)));

const context = invocationContext();

async function throughGoondan(name: string): Promise<number> {
  const started = Bun.nanoseconds();
  const result = await executeToolCall({
    call: { id: "call_1", name, args: { text: "hello" } },
    catalog,
    registry,
    context,
  });
  const elapsed = Bun.nanoseconds() - started;
  if (result.status !== "ok" || result.output !== "hello")
    throw new Error(`bench call ${name} failed: ${JSON.stringify(result)}`);
  return elapsed;
}

async function throughSdk(client: Client): Promise<number> {
  const started = Bun.nanoseconds();
  await client.callTool({ name: "echo", arguments: { text: "hello" } });
  return Bun.nanoseconds() - started;
}

const series = {
  direct: () => throughGoondan("direct__echo"),
  sdkStdio: () => throughSdk(bareStdio),
  mcpStdio: () => throughGoondan("local__echo"),
  sdkHttp: () => throughSdk(bareHttp),
  mcpHttp: () => throughGoondan("remote__echo"),
};
type Series = keyof typeof series;

for (let index = 0; index < WARMUP; index++) for (const run of Object.values(series)) await run();
const samples = Object.fromEntries(Object.keys(series).map((key) => [key, new Float64Array(ITERATIONS)])) as Record<
  Series,
  Float64Array
>;
for (let done = 0; done < ITERATIONS; done += BATCH) {
  const end = Math.min(ITERATIONS, done + BATCH);
  for (const key of Object.keys(series) as Series[])
    for (let index = done; index < end; index++) samples[key][index] = await series[key]();
}

await bareStdio.close();
await bareHttp.close();
await bridge.stop();
await http.stop();

const percentileOf = (key: Series, p: number): number => percentile(samples[key], p) / 1e6;
const ms = (value: number): string => `${value.toFixed(3)} ms`;
const line = (label: string, key: Series) =>
  console.log(`  ${label.padEnd(36)} p50 ${ms(percentileOf(key, 50))}   p99 ${ms(percentileOf(key, 99))}`);

console.log(
  `mcp-call bench: ${ITERATIONS} calls of each after ${WARMUP} warm-up calls (fixture echo; interleaved batches of ${BATCH})`,
);
line("direct tool (executeToolCall)", "direct");
line("SDK client.callTool, stdio (floor)", "sdkStdio");
line("MCP tool via goondan, stdio", "mcpStdio");
line("SDK client.callTool, HTTP (floor)", "sdkHttp");
line("MCP tool via goondan, HTTP", "mcpHttp");
for (const [transport, sdk, mcp] of [
  ["stdio", "sdkStdio", "mcpStdio"],
  ["HTTP", "sdkHttp", "mcpHttp"],
] as const) {
  const over = (p: number) => percentileOf(mcp, p) - percentileOf("direct", p);
  const share = (p: number) => percentileOf(mcp, p) - percentileOf(sdk, p);
  console.log(
    `  ${transport}: MCP overhead over the direct tool p50 ${ms(over(50))} p99 ${ms(over(99))}; goondan's share over the bare SDK call p50 ${ms(share(50))} p99 ${ms(share(99))} (${(percentileOf(mcp, 50) / percentileOf(sdk, 50)).toFixed(2)}x)`,
  );
  console.log(
    `    target goondan share p50 < ${TARGET_GOONDAN_SHARE_P50_MS} ms: ${share(50) < TARGET_GOONDAN_SHARE_P50_MS ? "met" : "NOT MET"}`,
  );
}
