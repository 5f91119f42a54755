/**
 * `import { pending, ToolFault } from "goondan"` in a bundle that lives outside the repo and has no
 * node_modules: `goondan validate` loads the Tool module (probe child) and exits 0, and the real agent
 * child runs the tool in a turn against the loopback LLM, both from the source entry and from the
 * Bun.build bundle of the entry that the orchestrator runs (whose import.meta.url points into the cache);
 * a connector child loads a connector file that imports it too.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { AGENT_ENTRY_SCRIPT, agentChildArgv, BUNDLE_SNAPSHOT_ENV } from "../../src/protocol/child-entry.ts";
import { envelope, ORCHESTRATOR, type ChildMessage } from "../../src/protocol/ipc-messages.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import { bundleAgentEntry } from "../../src/daemon/agent-entry-bundle.ts";
import { writeBundleSnapshot } from "../../src/orchestrator/bundle-snapshot-file.ts";
import { CONNECTOR_ENTRY_SCRIPT } from "../../src/protocol/child-entry.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { emptyInstanceState } from "../../src/protocol/instance-state.ts";
import { startLoopbackLlm, toolResults, type LoopbackLlm } from "../helpers/loopback-llm.ts";
import { killChild, useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const HELPERS_MODULE = `import { pending, ToolFault } from "goondan";
import type { ToolHandler } from "goondan";

const check: ToolHandler = () => ({ handle: pending("job-1").handle });
const refuse: ToolHandler = () => {
  throw new ToolFault("E_DEMO_REFUSED", "refused on purpose", { suggestion: "ask nicely" });
};
export const handlers = { check, refuse };
`;

/** A bundle in a temp dir (no node_modules anywhere above it) whose Tool imports runtime helpers from "goondan". */
function writeOutsideBundle(endpoint: string): string {
  const dir = tempDir("goondan-outside-bundle-");
  writeFileSync(
    join(dir, "goondan.yaml"),
    `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: loopback }
spec: { provider: openai-compatible, model: loopback-model, endpoint: ${endpoint}, apiKey: { value: sk-loopback } }
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: helpers }
spec:
  entry: ./helpers.ts
  exports: [{ name: check }, { name: refuse }]
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: assistant }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "You use helpers." }
  tools: [Tool/helpers]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: fixture }
spec: { entryAgent: Agent/assistant, agents: [Agent/assistant] }
`,
  );
  writeFileSync(join(dir, "helpers.ts"), HELPERS_MODULE);
  // Children run with the bundle as cwd: if "goondan" ever stops resolving, fail here instead of letting
  // Bun auto-install look the name up in the npm registry (tests only talk to 127.0.0.1).
  writeFileSync(join(dir, "bunfig.toml"), '[install]\nauto = "disable"\n');
  return dir;
}

function hasNodeModulesAbove(dir: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, "node_modules"))) return true;
    if (dirname(current) === current) return false;
  }
}

function captureIo(cwd: string): CliIo & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    env: {},
    cwd,
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

/**
 * Runs one turn in a real agent child started from `entry`, given the validated bundle as a snapshot as
 * the orchestrator does (a bundled entry cannot load the built-in package from disk); returns turn_result.
 */
async function runOneTurn(options: { entry: string; bundle: string }): Promise<unknown> {
  const messages: ChildMessage[] = [];
  let wake: () => void = () => {};
  const stateRoot = tempDir("goondan-resolver-state-");
  const snapshot = writeBundleSnapshot({
    stateRoot,
    bundle: await loadBundleOrThrow(options.bundle, { checkModules: false }),
  });
  const child = Bun.spawn(
    [
      process.execPath,
      options.entry,
      ...agentChildArgv({
        bundle: options.bundle,
        swarm: "fixture",
        agent: "assistant",
        instanceKey: "main",
        stateRoot,
      }),
    ],
    {
      cwd: options.bundle,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        GOONDAN_LOG_LEVEL: "error",
        [BUNDLE_SNAPSHOT_ENV]: snapshot,
      },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      serialization: "json",
      ipc(message) {
        const typed = message as ChildMessage;
        messages.push(typed);
        // The orchestrator's part: a step's commit is acknowledged (nothing is kept here).
        if (typed.type === "commit")
          child.send(envelope("committed", ORCHESTRATOR, "assistant/main", { seq: typed.payload.seq }));
        wake();
      },
    },
  );
  child.send(envelope("hydrate", ORCHESTRATOR, "assistant/main", emptyInstanceState()));
  defer(killChild(child));
  const waitFor = async (type: ChildMessage["type"]): Promise<ChildMessage> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = messages.find((message) => message.type === type || message.type === "fatal");
      if (found !== undefined) {
        if (found.type === "fatal" && type !== "fatal")
          throw new Error(`agent child sent fatal: ${JSON.stringify(found.payload)}`);
        return found;
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${type}; stderr: ${await new Response(child.stderr).text()}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
  };
  await waitFor("ready");
  const event: AgentEvent = {
    id: `evt_resolver${Date.now()}`,
    type: "user.input",
    input: "use the helpers",
    agent: "assistant",
    instanceKey: "main",
    source: { kind: "user", name: "test" },
    traceId: "b".repeat(32),
    callChain: [],
    metadata: {},
    createdAt: new Date().toISOString(),
  };
  child.send(envelope("event", ORCHESTRATOR, "assistant/main", { event, attempt: 1 }));
  return (await waitFor("turn_result")).payload;
}

async function scriptHelpersTurn(): Promise<LoopbackLlm> {
  const server = await startLoopbackLlm({
    replies: [
      {
        toolCalls: [
          { id: "call_check", name: "helpers__check", args: {} },
          { id: "call_refuse", name: "helpers__refuse", args: {} },
        ],
      },
      { text: "helpers used" },
    ],
  });
  defer(() => server.close());
  return server;
}

function expectHelpersRan(llm: LoopbackLlm): void {
  expect(llm.unexpected).toHaveLength(0);
  const results = toolResults(llm.requests[1]!);
  expect(results.find((result) => result.toolCallId === "call_check")?.content).toEqual({
    status: "ok",
    output: { handle: "job-1" },
  });
  expect(results.find((result) => result.toolCallId === "call_refuse")?.content).toMatchObject({
    status: "error",
    error: { code: "E_DEMO_REFUSED", suggestion: "ask nicely" },
  });
}

describe('import ... from "goondan" in a bundle without node_modules', () => {
  it("passes goondan validate: the module probe resolves the package", async () => {
    const bundle = writeOutsideBundle("http://127.0.0.1:9/v1");
    expect(hasNodeModulesAbove(bundle)).toBe(false);
    const io = captureIo(bundle);
    expect(await main(["validate", bundle, "--format", "json"], io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ valid: true, errors: [] });
  });

  it("runs in the agent child started from the source entry", async () => {
    const server = await scriptHelpersTurn();
    const payload = await runOneTurn({ entry: AGENT_ENTRY_SCRIPT, bundle: writeOutsideBundle(server.url) });
    expect(payload).toMatchObject({ status: "ok", response: "helpers used" });
    expectHelpersRan(server);
  }, 20_000);

  it("runs in the agent child started from the orchestrator's Bun.build bundle of the entry", async () => {
    const entry = await bundleAgentEntry({
      stateRoot: tempDir("goondan-resolver-build-"),
      logger: silentLogger(),
      env: {},
    });
    expect(entry).not.toBe(AGENT_ENTRY_SCRIPT);
    const server = await scriptHelpersTurn();
    const payload = await runOneTurn({ entry, bundle: writeOutsideBundle(server.url) });
    expect(payload).toMatchObject({ status: "ok", response: "helpers used" });
    expectHelpersRan(server);
  }, 30_000);

  it("loads in the connector child", async () => {
    const dir = writeOutsideBundle("http://127.0.0.1:9/v1");
    writeFileSync(
      join(dir, "connector.ts"),
      'import { ToolFault } from "goondan";\nexport default async function () {\n  if (typeof ToolFault !== "function") throw new Error("no ToolFault");\n}\n',
    );
    const messages: ChildMessage[] = [];
    const child = Bun.spawn([process.execPath, CONNECTOR_ENTRY_SCRIPT, "--connection", "resolver"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
      serialization: "json",
      ipc: (message) => void messages.push(message as ChildMessage),
    });
    defer(killChild(child));
    child.send(
      envelope("connector_start", ORCHESTRATOR, "connector:resolver", {
        connector: "resolver",
        connection: "resolver",
        entry: join(dir, "connector.ts"),
        config: {},
        secrets: {},
      }),
    );
    const deadline = Date.now() + 10_000;
    while (
      !messages.some((message) => message.type === "connector_ready" || message.type === "fatal") &&
      Date.now() < deadline
    )
      await Bun.sleep(20);
    expect(messages.map((message) => message.type)).toContain("connector_ready");
    expect(messages.find((message) => message.type === "fatal")).toBeUndefined();
  }, 15_000);
});
