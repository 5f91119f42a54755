/**
 * The `mcp` extension through a real `goondan run` (bin/goondan, a real agent child, a model on the loopback
 * LLM): the published filesystem server from node_modules (given a directory relative to the bundle, where it
 * runs) and the SDK-written fixture, both over stdio, as children of the agent. The model lists a directory through `files__list_directory`; a secret env value reaches
 * the server but no log line and no state file; a tool that changes the list shows in the next step's catalog;
 * a hanging tool times out. Then the lifecycle: kill -9 of the agent ends its servers (checked in /proc), the
 * restarted agent starts them again, and kill -9 of the orchestrator ends those too.
 */
import { describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  lastUserText,
  startLoopbackLlm,
  toolNames,
  toolResults,
  type LoopbackReply,
  type LoopbackRequest,
} from "../../helpers/loopback-llm.ts";
import { isAlive, pidsWithCommandLine, startGoondanRun, until } from "../../helpers/goondan-process.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { FILESYSTEM_SERVER, FIXTURE_SERVER } from "../../fixtures/mcp/fixture-process.ts";

const defer = useCleanups();
/** The published server is a Node program, as users run it; npm brings node, so CI must have it. */
const NODE = Bun.which("node");
if (NODE === null && process.env.CI === "true")
  throw new Error("node is not on PATH: the published MCP server (@modelcontextprotocol/server-filesystem) cannot run");
if (NODE === null) console.warn("skipping the real goondan run MCP test: node is not on PATH");
const SECRET = `mcp-secret-${crypto.randomUUID()}`;

function model(request: LoopbackRequest): LoopbackReply {
  if (request.body.messages.at(-1)?.role === "tool")
    return { text: `tool said ${JSON.stringify(toolResults(request).at(-1)?.content)}` };
  const text = lastUserText(request);
  if (text.startsWith("list "))
    return { toolCalls: [{ name: "files__list_directory", args: { path: text.slice("list ".length) } }] };
  if (text === "env") return { toolCalls: [{ name: "fixture__env", args: { name: "FIXTURE_TOKEN" } }] };
  if (text === "toggle") return { toolCalls: [{ name: "fixture__toggle_extra", args: {} }] };
  if (text === "hang") return { toolCalls: [{ name: "fixture__hang", args: {} }] };
  return { text: `unscripted: ${text}` };
}

/** The bundle, with the filesystem server's directory inside it, named relatively: the server runs in the bundle directory. */
function writeBundle(options: { endpoint: string; dataDirName: string; tag: string }): {
  dir: string;
  dataDir: string;
} {
  const dir = mkdtempSync(join(tmpdir(), "goondan-mcp-run-"));
  const dataDir = join(dir, options.dataDirName);
  mkdirSync(dataDir);
  writeFileSync(
    join(dir, "goondan.yaml"),
    `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: loopback }
spec: { provider: openai-compatible, model: loopback-model, endpoint: ${options.endpoint}, apiKey: { valueFrom: { env: LOOPBACK_API_KEY } } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: assistant }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "You use MCP tools." }
  extensions:
    - ref: { kind: Extension, name: mcp, package: "@goondan/base" }
      config:
        servers:
          files: { command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${options.dataDirName}] }
          fixture:
            command: ${JSON.stringify(process.execPath)}
            args: [${JSON.stringify(FIXTURE_SERVER)}, --stdio, --stderr-env, FIXTURE_TOKEN, --tag, ${options.tag}]
            env: { FIXTURE_TOKEN: { valueFrom: { env: MCP_FIXTURE_TOKEN } } }
            timeoutMs: 500
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: mcp-run }
spec:
  entryAgent: Agent/assistant
  agents: [Agent/assistant]
  policy: { shutdown: { gracePeriodSeconds: 3 }, requestTimeoutMs: 30000 }
`,
  );
  return { dir, dataDir };
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((name) => join(root, name))
    .filter((path) => statSync(path).isFile());
}

describe.skipIf(NODE === null)("mcp in a real goondan run", () => {
  it("runs MCP tools for the model and ends its servers with the agent, whichever process is killed", async () => {
    const llm = await startLoopbackLlm({ respond: model });
    const dataDirName = `data-${crypto.randomUUID()}`;
    const tag = `mcp-run-${crypto.randomUUID()}`;
    const { dir, dataDir } = writeBundle({ endpoint: llm.url, dataDirName, tag });
    writeFileSync(join(dataDir, "hello-from-mcp.txt"), "hi");
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-mcp-state-"));
    defer(async () => {
      await llm.close();
      for (const path of [dir, stateRoot]) rmSync(path, { recursive: true, force: true });
    });
    const serverPids = () => [...pidsWithCommandLine(dataDirName), ...pidsWithCommandLine(tag)];
    defer(() => {
      for (const pid of serverPids()) process.kill(pid, "SIGKILL");
    });
    const daemon = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env: { LOOPBACK_API_KEY: "test-key", MCP_FIXTURE_TOKEN: SECRET, GOONDAN_LOG_LEVEL: "debug" },
      readyTimeoutMs: 20_000,
      onSpawn: (proc) =>
        defer(() => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
        }),
    });
    const ask = async (input: string) => {
      const response = await fetch(`${daemon.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input, wait: true }),
      });
      return (await response.json()) as { status: string; response: string };
    };
    const agentPid = async () => {
      const body = (await (await fetch(`${daemon.base}/v1/processes`)).json()) as {
        processes: { agent?: string; pid: number | null }[];
      };
      return body.processes.find((row) => row.agent === "assistant")?.pid ?? undefined;
    };

    // The published server, driven by the model.
    const listed = await ask(`list ${dataDir}`);
    expect(listed.status).toBe("ok");
    expect(listed.response).toContain("hello-from-mcp.txt");
    expect(toolNames(llm.requests[0]!)).toContain("files__list_directory");

    // The secret reached the server's environment, and nothing else.
    expect((await ask("env")).response).toContain(`{"set":true,"length":${SECRET.length}}`);
    const toggled = await ask("toggle");
    expect(toggled.response).toContain("extra added");
    const afterToggle = llm.requests.find(
      (request) =>
        request.body.messages.at(-1)?.role === "tool" && JSON.stringify(toolResults(request)).includes("extra added"),
    );
    expect(toolNames(afterToggle!)).toContain("fixture__extra");
    expect((await ask("hang")).response).toContain("E_TOOL_TIMEOUT");

    // kill -9 of the agent: its servers end; the restarted agent starts them again.
    const firstAgent = (await agentPid())!;
    const firstServers = serverPids();
    expect(firstServers.length).toBeGreaterThanOrEqual(2);
    process.kill(firstAgent, "SIGKILL");
    await until(() => firstServers.every((pid) => !isAlive(pid)), { timeoutMs: 10_000 });
    expect((await ask(`list ${dataDir}`)).response).toContain("hello-from-mcp.txt");
    const secondServers = serverPids();
    expect(secondServers.length).toBeGreaterThanOrEqual(2);
    expect(secondServers.some((pid) => firstServers.includes(pid))).toBe(false);

    // kill -9 of the orchestrator: the agent leaves, and its servers with it.
    const secondAgent = (await agentPid())!;
    daemon.proc.kill("SIGKILL");
    await daemon.proc.exited;
    await until(() => !isAlive(secondAgent) && secondServers.every((pid) => !isAlive(pid)), { timeoutMs: 10_000 });
    expect(serverPids()).toEqual([]);

    // The server printed the secret on its stderr: logged redacted, never in clear, nowhere in the state.
    const logs = daemon.lines.map((line) => JSON.stringify(line)).join("\n");
    expect(logs).toContain("FIXTURE_TOKEN=[redacted]");
    expect(logs).not.toContain(SECRET);
    for (const file of filesUnder(stateRoot)) expect(readFileSync(file, "utf8")).not.toContain(SECRET);
    expect(llm.unexpected).toEqual([]);
  }, 60_000);
});
