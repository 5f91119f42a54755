/**
 * goondan's side of bench/peer-compare.ts: the peer workload as a goondan bundle (an entry agent delegating with
 * `agents__request` to a worker with one echo tool, declared `idempotent` as the pure function it is, so its step is
 * recorded without an fsync of its own: docs/writing-a-tool.md), run by `goondan run` with its state on disk and driven
 * through `POST /v1/events` (`wait: true`), a conversation being an instanceKey (the entry's; the loopback server
 * gives it its own worker instance). CPU is `goondan run` and every process under it, ended children included
 * (bench/support/process-cpu.ts); the peak of live processes is sampled every 250 ms.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GOONDAN_BIN, runToExit, startGoondanRun } from "../../test/helpers/goondan-process.ts";
import { processCpuMs, treeCpuMeter } from "../support/process-cpu.ts";
import { processTree } from "../support/process-tree.ts";
import { driveLane, type Conversation, type PeerFigures } from "./peer-harness.ts";

export interface GoondanOptions {
  url: string;
  stateParent: string;
  sequential: number;
  requests: number;
  lanes: number;
  perConversation: number;
  /** Written as `process: { isolation }` into both Agents' specs; absent: the field is left out. */
  isolation?: string;
}

export interface GoondanFigures extends PeerFigures {
  /** Requests sent in all, warm-up included. */
  sent: number;
  peakProcesses: number;
  /** CPU ms of the `goondan run` process itself (the orchestrator) over both measured phases; the rest is children. */
  orchestratorCpuMs?: number;
}

export function writeBundle(dir: string, url: string, isolation?: string): void {
  mkdirSync(join(dir, "tools"), { recursive: true });
  writeFileSync(
    join(dir, "tools", "echo.ts"),
    `export const handlers = { say: async (_ctx: unknown, input: { text: string }) => ({ text: input.text }) };\n`,
  );
  const processField = isolation === undefined ? "" : `, process: { isolation: ${isolation} }`;
  const docs = [
    `kind: Model\nmetadata: { name: loopback }\nspec: { provider: openai-compatible, model: loopback-model, endpoint: "${url}", apiKey: { valueFrom: { env: LOOPBACK_API_KEY } } }`,
    `kind: Tool\nmetadata: { name: echo }\nspec:\n  entry: ./tools/echo.ts\n  exports:\n    - { name: say, description: Echo the text back., idempotent: true, parameters: { type: object, properties: { text: { type: string } }, required: [text] } }`,
    `kind: Agent\nmetadata: { name: entry }\nspec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: "ROLE=entry" }, tools: [{ kind: Tool, name: agents, package: "@goondan/base" }]${processField} }`,
    `kind: Agent\nmetadata: { name: worker }\nspec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: "ROLE=worker" }, tools: [Tool/echo]${processField} }`,
    `kind: Swarm\nmetadata: { name: peer }\nspec: { entryAgent: Agent/entry, agents: [Agent/entry, Agent/worker] }`,
  ];
  writeFileSync(join(dir, "goondan.yaml"), docs.map((doc) => `apiVersion: goondan.ai/v1\n${doc}\n`).join("---\n"));
}

/** A conversation with goondan: one instanceKey of the entry agent. */
export function goondanConversation(base: string): (conversation: string) => Conversation {
  return (conversation) => async (text) => {
    const response = await fetch(`${base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: text, instanceKey: conversation, wait: true }),
    });
    const body = (await response.json()) as { status?: string; response?: string };
    if (response.status !== 200 || body.status !== "ok")
      throw new Error(`goondan answered ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body.response ?? "";
  };
}

export async function measureGoondan(options: GoondanOptions): Promise<GoondanFigures> {
  const dir = mkdtempSync(join(tmpdir(), "goondan-peer-bundle-"));
  const stateRoot = mkdtempSync(join(options.stateParent, "goondan-peer-state-"));
  writeBundle(dir, options.url, options.isolation);
  const env = { LOOPBACK_API_KEY: "loopback" };
  const daemon = await startGoondanRun({
    args: [dir, "--port", "0", "--state-root", stateRoot],
    env,
    stderr: "ignore",
  }).catch(async (error: Error) => {
    // Say why: most often the bundle (an unknown `spec.process` with --isolation on a runtime without it).
    const check = await runToExit({
      argv: [process.execPath, GOONDAN_BIN, "validate", dir],
      env: { ...process.env, ...env },
    });
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
    throw new Error(
      `goondan run did not start (${error.message.slice(0, 200)}); goondan validate: ${check.stdout}${check.stderr}`,
    );
  });
  let peakProcesses = 0;
  const sampler = setInterval(() => {
    peakProcesses = Math.max(peakProcesses, processTree(daemon.proc.pid).length);
  }, 250);
  try {
    const start = goondanConversation(daemon.base);
    const per = options.perConversation;
    await Promise.all(
      Array.from({ length: options.lanes }, (_, index) =>
        driveLane({ name: `lane-${index}`, requests: 2, perConversation: per, start }),
      ),
    );
    await driveLane({ name: "lane-seq", requests: 20, perConversation: per, start });
    const sequentialMs: number[] = [];
    const cpu = treeCpuMeter(daemon.proc.pid);
    const orchestratorBefore = processCpuMs(daemon.proc.pid);
    cpu.start();
    await driveLane({
      name: "lane-seq",
      requests: options.sequential,
      perConversation: per,
      start,
      times: sequentialMs,
    });
    const sequentialCpuMs = cpu.stop();
    const perLane = Math.ceil(options.requests / options.lanes);
    cpu.start();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.lanes }, (_, index) =>
        driveLane({ name: `lane-${index}`, requests: perLane, perConversation: per, start }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const lanesCpuMs = cpu.stop();
    const orchestratorCpuMs = processCpuMs(daemon.proc.pid) - orchestratorBefore;
    return {
      sequentialMs,
      lanes: { requests: perLane * options.lanes, seconds },
      ...(sequentialCpuMs === undefined ? {} : { sequentialCpuMs }),
      ...(lanesCpuMs === undefined ? {} : { lanesCpuMs }),
      sent: options.lanes * 2 + 20 + options.sequential + perLane * options.lanes,
      peakProcesses,
      ...(lanesCpuMs === undefined ? {} : { orchestratorCpuMs }),
    };
  } finally {
    clearInterval(sampler);
    daemon.proc.kill("SIGTERM");
    await daemon.proc.exited;
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  }
}
