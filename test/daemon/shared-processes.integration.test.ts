/**
 * Shared agent processes with real processes (`goondan run`, Bun hosts, the loopback LLM): two instances of one agent
 * in one process, that process SIGKILLed while both run a turn and both resumed once; each instance's tools given
 * only its own workdir; an `isolation: instance` agent beside shared ones; the per-process cap queueing instances
 * rather than dropping them; and a reload restarting only the changed agent's process, its instances resumed.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { realProcessTimeouts, useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { lastUserText, messageText, startLoopbackLlm, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { loopbackBundle, runLoopbackBundle } from "./loopback-bundle.ts";
import { mkdirSync } from "node:fs";

const defer = useCleanups();
realProcessTimeouts();

const PROBE = `import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
// The process's own mark: in its sandbox (own PID namespace) process.pid says nothing outside it.
const PROCESS = crypto.randomUUID();
export const handlers = {
  where: async (ctx) => ({ workdir: ctx.workdir, process: PROCESS }),
  // Says it started (its step's commit came before it) in the instance's workdir, then takes a while.
  slow: async (ctx) => { writeFileSync(join(ctx.workdir, "slow-started"), "1"); await sleep(4000); return { slept: true }; },
};
`;

const documents = (soloExtra = "") => `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: probe }
spec:
  entry: ./tools/probe.ts
  exports:
    - { name: where, description: Where am I., parameters: { type: object, properties: {} } }
    - { name: slow, description: Take a while., parameters: { type: object, properties: {} } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: shared }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "ROLE=shared" }
  tools: [Tool/probe, { kind: Tool, name: file-system, package: "@goondan/base" }]
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: solo }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "ROLE=solo${soloExtra}" }
  tools: [Tool/probe]
  process: { isolation: instance }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: capped }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "ROLE=capped" }
  tools: [Tool/probe]
  process: { maxProcesses: 1, maxInstancesPerProcess: 1 }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: shared }
spec:
  entryAgent: Agent/shared
  agents: [Agent/shared, Agent/solo, Agent/capped]
  policy: { shutdown: { gracePeriodSeconds: 2 }, restart: { initialBackoffMs: 50, maxBackoffMs: 500 } }
`;

/** The model: a command word in the user's text becomes a tool call; a tool's result comes back as the reply. */
function respond(request: LoopbackRequest) {
  const last = request.body.messages.at(-1);
  if (last?.role === "tool") return { text: `tool said: ${messageText(last)}` };
  const text = lastUserText(request);
  const [command, ...rest] = text.split(" ");
  if (command === "where") return { toolCalls: [{ name: "probe__where", args: {} }] };
  if (command === "slow") return { toolCalls: [{ name: "probe__slow", args: {} }] };
  if (command === "write")
    return { toolCalls: [{ name: "file-system__write", args: { path: "note.txt", content: rest.join(" ") } }] };
  if (command === "read") return { toolCalls: [{ name: "file-system__read", args: { path: rest.join(" ") } }] };
  return { text: `echo ${text}` };
}

interface Row {
  agent: string;
  instanceKey: string;
  pid: number | null;
  status: string;
  processInstances?: number;
}

async function start(soloExtra = "") {
  const llm = await startLoopbackLlm({ respond });
  defer(() => llm.close());
  const dir = loopbackBundle({ defer, llmUrl: llm.url, documents: documents(soloExtra) });
  mkdirSync(join(dir, "bundle", "tools"));
  writeFileSync(join(dir, "bundle", "tools", "probe.ts"), PROBE);
  const run = await runLoopbackBundle({ defer, dir });
  const ask = async (agent: string, instanceKey: string, input: string) => {
    const response = await fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent, instanceKey, input, wait: true }),
    });
    return (await response.json()) as { status: string; response: string };
  };
  const submit = async (agent: string, instanceKey: string, input: string) => {
    const response = await fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent, instanceKey, input }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { eventId: string }).eventId;
  };
  const rows = async (): Promise<Row[]> =>
    ((await (await fetch(`${run.base}/v1/processes`)).json()) as { processes: Row[] }).processes;
  const row = async (agent: string, instanceKey: string) =>
    (await rows()).find((candidate) => candidate.agent === agent && candidate.instanceKey === instanceKey);
  const answer = (eventId: string) =>
    until(
      async () => {
        const state = (await (await fetch(`${run.base}/v1/events/${eventId}`)).json()) as Record<string, unknown>;
        return state.state === "ok" || state.state === "error" ? state : undefined;
      },
      { timeoutMs: 60_000 },
    );
  return { llm, dir, run, ask, submit, rows, row, answer };
}

/** The `where` tool's output, as the model was shown it and repeated it. */
function where(reply: { response: string }): { workdir: string; process: string } {
  const text = reply.response.slice(reply.response.indexOf("{"));
  const shown = JSON.parse(text) as Record<string, unknown>;
  const output = (shown.output ?? shown) as { workdir: string; process: string };
  if (typeof output.process !== "string") throw new Error(`no process in ${reply.response}`);
  return output;
}

describe("shared agent processes, real processes", () => {
  it("runs two instances of one agent in one process, and resumes both once when that process is killed", async () => {
    const { llm, ask, submit, row, answer } = await start();
    const a = where(await ask("shared", "a", "where"));
    const b = where(await ask("shared", "b", "where"));
    expect(a.process).toBe(b.process);
    const pid = (await row("shared", "a"))?.pid as number;
    expect(typeof pid).toBe("number");
    expect(await row("shared", "b")).toMatchObject({ pid, processInstances: 2 });

    // Both run a slow tool in that one process; it is killed; both turns are delivered again, once each.
    const events = [await submit("shared", "a", "slow"), await submit("shared", "b", "slow")];
    await until(
      async () =>
        (await row("shared", "a"))?.status === "processing" && (await row("shared", "b"))?.status === "processing",
    );
    await until(() => existsSync(join(a.workdir, "slow-started")) && existsSync(join(b.workdir, "slow-started")));
    process.kill(pid, "SIGKILL");
    const answers = await Promise.all(events.map((eventId) => answer(eventId)));
    for (const answered of answers) {
      expect(answered.status).toBe("ok");
      expect(String(answered.response)).toContain("E_TOOL_INTERRUPTED");
    }
    const after = [await row("shared", "a"), await row("shared", "b")];
    expect(after[0]?.pid).not.toBe(pid);
    expect(after[0]?.pid).toBe(after[1]?.pid as number);
    // Each instance answered once: one interrupted result shown to the model per instance, and the turns went on.
    const shown = llm.requests.filter((request) =>
      messageText(request.body.messages.at(-1)).includes("E_TOOL_INTERRUPTED"),
    );
    expect(shown).toHaveLength(2);
    expect((await ask("shared", "a", "hello")).response).toBe("echo hello");
  }, 120_000);

  it("gives each instance in a shared process only its own workdir", async () => {
    const { ask } = await start();
    expect((await ask("shared", "a", "write secret of a")).status).toBe("ok");
    expect((await ask("shared", "b", "write note of b")).status).toBe("ok");
    const a = where(await ask("shared", "a", "where"));
    const b = where(await ask("shared", "b", "where"));
    expect(a.process).toBe(b.process);
    expect(a.workdir).not.toBe(b.workdir);
    expect(readFileSync(join(a.workdir, "note.txt"), "utf8")).toBe("secret of a");
    expect(readFileSync(join(b.workdir, "note.txt"), "utf8")).toBe("note of b");
    expect((await ask("shared", "a", "read note.txt")).response).toContain("secret of a");
    const peek = await ask("shared", "b", `read ${join(a.workdir, "note.txt")}`);
    expect(peek.response).toContain("E_");
    expect(peek.response).not.toContain("secret of a");
    const climb = await ask("shared", "b", "read ../../a/workdir/note.txt");
    expect(climb.response).not.toContain("secret of a");
  }, 120_000);

  it("runs an isolation: instance agent in processes of its own beside a shared one, and queues past a process's cap", async () => {
    const { ask, rows } = await start();
    const x = where(await ask("solo", "x", "where"));
    const y = where(await ask("solo", "y", "where"));
    const shared = where(await ask("shared", "s", "where"));
    expect(new Set([x.process, y.process, shared.process]).size).toBe(3);
    const solo = (await rows()).filter((candidate) => candidate.agent === "solo");
    expect(solo.map((candidate) => candidate.processInstances)).toEqual([1, 1]);

    // One process holding one instance: three instances at once take turns, none dropped.
    const replies = await Promise.all(["1", "2", "3"].map((key) => ask("capped", key, `hello ${key}`)));
    expect(replies.map((reply) => reply.response)).toEqual(["echo hello 1", "echo hello 2", "echo hello 3"]);
    const capped = (await rows()).filter((candidate) => candidate.agent === "capped" && candidate.pid !== null);
    expect(capped.length).toBeLessThanOrEqual(1);
  }, 120_000);
});
