/**
 * Approval latency: the time from `POST /v1/approvals/:id` (approve) being sent to the held tool starting in the
 * agent child, through a real `goondan run` (test/fixtures/approvals) on the loopback LLM, with the state on disk.
 *
 *   bun bench/approval-latency.ts [--iterations N] [--state-root DIR]
 *
 * Each iteration sends an event whose tool call is held (`wait: true` answers awaiting_approval), then approves
 * it; the tool writes the wall-clock time it started (sub-ms) to a file. Measured in the same run:
 * - floor: an HTTP round trip to the same API (`GET /v1/approvals`), the least any decision costs;
 * - reference: an event for an agent without approvals, from the POST to its tool starting (a whole step: the
 *   accepted event's fsync, delivery, one loopback model call, the tool);
 * - approve with the child reaped (informational, a few iterations): the decision has to start a process first.
 * The approve path is: the decision fsynced with the event reopened, the event delivered to the idle child, the
 * decision committed as applied (a round trip through the orchestrator's store) before the tool runs.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGoondanRun } from "../test/helpers/goondan-process.ts";
import { lastUserText, messageText, startLoopbackLlm } from "../test/helpers/loopback-llm.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

const iterations = Math.max(5, Number(flag("iterations", "200")));
const reapedIterations = Math.min(5, iterations);
const work = mkdtempSync(join(tmpdir(), "goondan-bench-approvals-"));
const stateRoot = flag("state-root", join(work, "state"));
const effectsFile = join(work, "effects.txt");
const dir = join(work, "bundle");

const llm = await startLoopbackLlm({
  respond: (request) => {
    const last = request.body.messages.at(-1);
    if (last?.role === "user") return { toolCalls: [{ name: "effects__append", args: { id: lastUserText(request) } }] };
    return { text: `done: ${messageText(last).slice(0, 40)}` };
  },
});
cpSync(new URL("../test/fixtures/approvals", import.meta.url).pathname, dir, { recursive: true });
const yaml = join(dir, "goondan.yaml");
// Idle children stay up for the live runs; the reaped runs wait out a short idleSeconds of their own.
writeFileSync(
  yaml,
  readFileSync(yaml, "utf8").replace("__ENDPOINT__", llm.url).replace("idleSeconds: 2", "idleSeconds: 300"),
);
const run = await startGoondanRun({
  args: [dir, "--port", "0", "--state-root", stateRoot],
  env: { LOOPBACK_API_KEY: "bench", GOONDAN_LOG_LEVEL: "info", APPROVALS_EFFECTS_FILE: effectsFile },
});
const json = { "content-type": "application/json" };

function toolStartedAt(id: string): number | undefined {
  if (!existsSync(effectsFile)) return undefined;
  const line = readFileSync(effectsFile, "utf8")
    .split("\n")
    .find((text) => text.startsWith(`${id} `));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
}

async function waitForTool(id: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const at = toolStartedAt(id);
    if (at !== undefined) return at;
    if (Date.now() > deadline) throw new Error(`the tool never ran for ${id}`);
    await Bun.sleep(0.2);
  }
}

async function hold(agent: string, id: string, instanceKey: string): Promise<string> {
  const response = await fetch(`${run.base}/v1/events`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ agent, input: id, instanceKey, wait: true }),
  });
  const outcome = (await response.json()) as { status: string; approvalIds?: string[] };
  if (outcome.status !== "awaiting_approval" || outcome.approvalIds?.[0] === undefined)
    throw new Error(`expected awaiting_approval, got ${JSON.stringify(outcome)}`);
  return outcome.approvalIds[0];
}

async function approveToTool(id: string, approvalId: string): Promise<number> {
  const sentAt = performance.timeOrigin + performance.now();
  const response = await fetch(`${run.base}/v1/approvals/${approvalId}`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ decision: "approve", wait: true }),
  });
  if (response.status !== 200) throw new Error(`approve answered ${response.status}`);
  await response.arrayBuffer();
  return (await waitForTool(id)) - sentAt;
}

const floor: number[] = [];
const reference: number[] = [];
const approve: number[] = [];
const reaped: number[] = [];
try {
  // Warm up: both instances' children started, every code path loaded once.
  await approveToTool("warm-a", await hold("assistant", "warm-a", "bench"));
  await fetch(`${run.base}/v1/events`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ agent: "free", input: "warm-f", instanceKey: "bench", wait: true }),
  });
  for (let i = 0; i < iterations; i += 1) {
    let started = performance.now();
    await (await fetch(`${run.base}/v1/approvals`)).arrayBuffer();
    floor.push(performance.now() - started);

    const freeId = `free-${i}`;
    started = performance.timeOrigin + performance.now();
    const answered = fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ agent: "free", input: freeId, instanceKey: "bench", wait: true }),
    });
    reference.push((await waitForTool(freeId)) - started);
    await (await answered).arrayBuffer();

    const heldId = `held-${i}`;
    approve.push(await approveToTool(heldId, await hold("assistant", heldId, "bench")));
  }
  for (let i = 0; i < reapedIterations; i += 1) {
    const id = `reaped-${i}`;
    const key = `reaped-${i}`;
    const approvalId = await hold("assistant", id, key);
    const processes = async () =>
      (
        (await (await fetch(`${run.base}/v1/processes`)).json()) as {
          processes: { agent: string; instanceKey: string; pid: number | null }[];
        }
      ).processes;
    const row = (await processes()).find((entry) => entry.agent === "assistant" && entry.instanceKey === key);
    if (row?.pid) process.kill(row.pid, "SIGTERM");
    const deadline = Date.now() + 10_000;
    while (
      (await processes()).some(
        (entry) => entry.agent === "assistant" && entry.instanceKey === key && entry.pid !== null,
      )
    ) {
      if (Date.now() > deadline) throw new Error("the child did not stop");
      await Bun.sleep(20);
    }
    reaped.push(await approveToTool(id, approvalId));
  }
} finally {
  run.proc.kill("SIGTERM");
  await run.proc.exited;
  await llm.close();
  rmSync(work, { recursive: true, force: true });
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const row = (name: string, samples: number[]) =>
  `${name.padEnd(58)} p50 ${ms(percentile(samples, 50)).padStart(10)}  p99 ${ms(percentile(samples, 99)).padStart(10)}  (n=${samples.length})`;
console.log(
  `approval latency, ${iterations} iterations, state root ${stateRoot.startsWith(tmpdir()) ? "under " + tmpdir() : stateRoot}`,
);
console.log(row("floor: GET /v1/approvals round trip", floor));
console.log(row("reference: event → tool started (no approval, 1 model call)", reference));
console.log(row("approve POST sent → tool started (child idle)", approve));
console.log(row("approve POST sent → tool started (child stopped first)", reaped));
console.log(
  `ratios (p50): approve/floor ${(percentile(approve, 50) / percentile(floor, 50)).toFixed(2)}x, approve/reference ${(percentile(approve, 50) / percentile(reference, 50)).toFixed(2)}x`,
);
