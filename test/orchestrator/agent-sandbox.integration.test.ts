/**
 * A custom Tool module as an attacker, through a real `goondan run` with its API credential on (the daemon makes
 * `<state root>/api-token`): it runs inside the agent process, and it and the `cat` and `curl` it spawns fail to
 * read the token file, goondan.db, another agent's and (with `isolation: instance`) a sibling instance's workdir,
 * and the orchestrator's /proc/<pid>/environ; unmounting what hides the state root fails; the daemon answers its
 * calls 401. It still does ordinary work: its own workdir, and the turn's model calls. A control agent with
 * `spec.process.sandbox: none` reads the token file with the same module. As root, and as `nobody`.
 */
import { describe, expect, it } from "bun:test";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { startGoondanRun } from "../helpers/goondan-process.ts";
import { lastUserText, startLoopbackLlm, toolResults, type LoopbackRequest } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
const PROBE = new URL("../fixtures/agent-sandbox/probe-tool.ts", import.meta.url).pathname;
const onLinux = process.platform === "linux";
const isRoot = process.getuid?.() === 0;
const setpriv = Bun.which("setpriv");
const NOBODY = 65534;

const probeExports = `exports:
      - { name: plant, parameters: { type: object, properties: { text: { type: string } }, required: [text] } }
      - name: probe
        parameters: { type: object, properties: { files: { type: array }, pids: { type: array }, port: { type: number }, stateRoot: { type: string } } }`;

function agent(name: string, process: string): string {
  return `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: ${name} }
spec:
  modelConfig: { modelRef: Model/m }
  prompt: { system: attack }
  tools: [Tool/probe]
  process: ${process}
---
`;
}

function writeBundle(endpoint: string, owner: number | undefined): { dir: string; stateRoot: string } {
  const dir = mkdtempSync(join(tmpdir(), "goondan-agent-sandbox-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(PROBE, join(dir, "probe.ts"));
  writeFileSync(
    join(dir, "goondan.yaml"),
    `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: m }
spec: { provider: openai-compatible, model: loopback, endpoint: ${JSON.stringify(endpoint)}, apiKey: { valueFrom: { env: PROBE_API_KEY } } }
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: probe }
spec:
  entry: ./probe.ts
  ${probeExports}
---
${agent("victim", "{ isolation: instance, sandbox: required }")}${agent("other", "{ sandbox: required }")}${agent("open", "{ sandbox: none }")}apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: attack }
spec: { entryAgent: Agent/victim, agents: [Agent/victim, Agent/other, Agent/open] }
`,
  );
  const stateRoot = join(dir, "state");
  mkdirSync(stateRoot);
  if (owner !== undefined) {
    for (const path of [dir, stateRoot, join(dir, "probe.ts"), join(dir, "goondan.yaml")])
      chownSync(path, owner, owner);
    chmodSync(dir, 0o755);
  }
  return { dir, stateRoot };
}

interface Report {
  files: Record<string, string>;
  cat: Record<string, string>;
  environ: Record<string, string>;
  catEnviron: Record<string, string>;
  unmount: string;
  afterUnmount: string;
  fetched: string;
  curl: string;
  own: string;
  processes: number;
}

async function attack(user: "self" | "nobody"): Promise<void> {
  let targets: { files: string[]; pids: number[]; port: number; stateRoot: string } | undefined;
  const llm = await startLoopbackLlm({
    respond: (request: LoopbackRequest) => {
      if (request.body.messages.at(-1)?.role === "tool")
        return { text: JSON.stringify(toolResults(request).at(-1)?.content) };
      const text = lastUserText(request);
      if (text.startsWith("plant ")) return { toolCalls: [{ name: "probe__plant", args: { text: text.slice(6) } }] };
      if (text === "probe") return { toolCalls: [{ name: "probe__probe", args: { ...targets } }] };
      return { text: `unscripted: ${text}` };
    },
  });
  defer(() => llm.close());
  const owner = user === "nobody" ? NOBODY : undefined;
  const { dir, stateRoot } = writeBundle(llm.url, owner);
  const daemon = await startGoondanRun({
    args: [dir, "--port", "0", "--state-root", stateRoot],
    env: { PROBE_API_KEY: "sk-probe-key", GOONDAN_API_AUTH: "on", GOONDAN_LOG_LEVEL: "info", HOME: dir },
    ...(owner === undefined
      ? {}
      : { prefix: [setpriv as string, `--reuid=${owner}`, `--regid=${owner}`, "--clear-groups"] }),
    readyTimeoutMs: 30_000,
    onSpawn: (proc) =>
      defer(() => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      }),
  });
  const headers = {
    "content-type": "application/json",
    authorization: `Bearer ${readFileSync(join(stateRoot, "api-token"), "utf8").trim()}`,
  };
  const ask = async (agentName: string, instanceKey: string, input: string): Promise<string> => {
    const response = await fetch(`${daemon.base}/v1/events`, {
      method: "POST",
      headers,
      body: JSON.stringify({ input, agent: agentName, instanceKey, wait: true }),
    });
    const body = (await response.json()) as { status: string; response: string };
    expect(body.status).toBe("ok");
    return body.response;
  };
  const plant = async (agentName: string, instanceKey: string): Promise<string> => {
    const answer = JSON.parse(await ask(agentName, instanceKey, `plant secret of ${instanceKey}`)) as {
      output: { workdir: string };
    };
    return join(answer.output.workdir, "secret.txt");
  };
  const otherAgents = await plant("other", "o1");
  const sibling = await plant("victim", "v1");
  expect(readFileSync(sibling, "utf8")).toBe("secret of v1");
  const orchestratorPid = (JSON.parse(readFileSync(join(stateRoot, "orchestrator.json"), "utf8")) as { pid: number })
    .pid;
  const token = join(stateRoot, "api-token");
  const database = join(stateRoot, "goondan.db");
  targets = {
    files: [token, database, otherAgents, sibling],
    pids: [orchestratorPid, daemon.proc.pid],
    port: daemon.port,
    stateRoot,
  };

  const answer = JSON.parse(await ask("victim", "v2", "probe")) as { status: string; output: Report };
  expect(answer.status).toBe("ok");
  const report = answer.output;
  for (const file of targets.files) {
    expect(report.files[file]).toStartWith("refused");
    expect(report.cat[file]).toMatch(/^exit=[1-9]\d* out=$/);
  }
  for (const pid of targets.pids) {
    expect(report.environ[pid]).toStartWith("refused");
    expect(report.catEnviron[pid]).toMatch(/^exit=[1-9]\d* out=$/);
  }
  expect(report.unmount).toMatch(/^exit=[1-9]/);
  expect(report.afterUnmount).toStartWith("refused");
  expect(report.fetched).toBe("401");
  expect(report.curl).toBe("exit=0 out=401");
  expect(report.processes).toBeLessThan(6); // its own namespace: itself and what it spawned
  expect(report.own).toBe("ordinary work");
  // Its row counts the agent process in the sandbox, not the launcher (a Bun process is tens of MB).
  const processes = (await (await fetch(`${daemon.base}/v1/processes`, { headers })).json()) as {
    processes: { agent?: string; instanceKey?: string; pid: number | null; rssBytes?: number }[];
  };
  const row = processes.processes.find((candidate) => candidate.agent === "victim" && candidate.instanceKey === "v2");
  expect(row?.rssBytes).toBeGreaterThan(20 * 1024 * 1024);
  // The same module in an agent with the sandbox off reads the token file: the fixture is a real attacker.
  const control = JSON.parse(await ask("open", "c1", "probe")) as { output: Report };
  expect(control.output.files[token]).toStartWith("read: ");
  expect(control.output.fetched).toBe("200");
  expect(control.output.environ[orchestratorPid]).toStartWith(isRoot && user === "self" ? "read: " : "refused");
  expect(llm.unexpected).toEqual([]);
}

const users: ("self" | "nobody")[] = isRoot && setpriv !== null ? ["self", "nobody"] : ["self"];

describe.skipIf(!onLinux)("a custom Tool module, run as an attacker in its agent process under goondan run", () => {
  for (const user of users) {
    it(`reads no state root file, no other process's environment, and gets 401 from the daemon, as ${user === "self" ? (isRoot ? "root" : "this user") : "nobody"}`, async () => {
      await attack(user);
    }, 90_000);
  }
});
