/**
 * Schedules with real processes: `goondan run` with a Connection of the built-in `schedule` connector firing every
 * second, an agent child answering each tick through the loopback LLM. The state database is the judge: the ticks
 * it accepted (ids `tick-<connection>-<ms>`) are counted against the seconds that came due (lost: a second with no
 * accepted tick that the catch-up mode did not promise to skip), and each answered tick's input must appear exactly
 * once in the agent's conversation (duplicated: one seen twice). Covered: ticks while the daemon runs; a stop across due
 * ticks, then a start, for each catch-up mode; and a SIGKILL of the orchestrator at a tick. Each test reports
 * 0 lost and 0 duplicated.
 */
import { describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { stateDatabasePath } from "../../src/store/open-state-store.ts";
import { tickTimeOf } from "../../src/connector/schedule/tick-event.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { loopbackBundle, runLoopbackBundle } from "./loopback-bundle.ts";
import { until } from "../helpers/goondan-process.ts";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
/** Three starts of a daemon and a stop each on a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 120_000;
const SWARM = "ticks";

function bundle(llmUrl: string, schedule: string): string {
  return loopbackBundle({
    defer,
    llmUrl,
    documents: `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: writer }
spec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: "write the digest" } }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: ${SWARM} }
spec: { entryAgent: Agent/writer, agents: [Agent/writer], policy: { shutdown: { gracePeriodSeconds: 2 } } }
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: pulse }
spec:
  connectorRef: { kind: Connector, name: schedule, package: "@goondan/base" }
  swarmRef: Swarm/${SWARM}
  config: { every: 1s, input: "pulse {{tickAt}}", ${schedule} }
  ingress:
    rules:
      - match: { event: tick }
        route: { agentRef: Agent/writer, instanceKey: pulse }
`,
  });
}

function startDaemon(dir: string) {
  return runLoopbackBundle({ defer, dir });
}

/** What the state database holds: each accepted tick's time, whether it is answered, and the conversation's ticks. */
async function ledger(dir: string) {
  const file = stateDatabasePath(join(dir, "state"));
  const db = new Database(file, { readonly: true });
  let rows: { event_id: string; outcome: string | null }[];
  try {
    rows = db
      .query("SELECT event_id, outcome FROM inbox WHERE swarm = ? AND event_id LIKE 'tick-pulse-%' ORDER BY event_id")
      .all(SWARM) as typeof rows;
  } finally {
    db.close();
  }
  const ticks = rows.map((row) => ({
    at: tickTimeOf("pulse", row.event_id) as number,
    answered: row.outcome !== null && (JSON.parse(row.outcome) as { status: string }).status === "ok",
  }));
  const store = new SqliteStore(file, { existing: true });
  try {
    const state = store.instanceState({ swarm: SWARM, agent: "writer", instanceKey: "pulse" });
    const inputs = state.messages
      .filter((message) => message.data.role === "user")
      .map((message) => String(message.data.content))
      .filter((text) => text.startsWith("pulse 20"));
    return { ticks, inputs };
  } finally {
    await store.close();
  }
}

/** Lost: seconds between the first and the last accepted tick that were not accepted; duplicated: inputs seen twice. */
function judge(result: Awaited<ReturnType<typeof ledger>>, allowedGap?: { from: number; to: number }) {
  const times = result.ticks.map((tick) => tick.at);
  const lost: number[] = [];
  for (let at = (times[0] as number) + 1000; at < (times.at(-1) as number); at += 1000)
    if (!times.includes(at) && !(allowedGap && at > allowedGap.from && at < allowedGap.to)) lost.push(at);
  const seen = new Map<string, number>();
  for (const input of result.inputs) seen.set(input, (seen.get(input) ?? 0) + 1);
  const duplicated = [...seen.values()].filter((count) => count > 1).length;
  // A tick accepted but not answered when the daemon stopped waits in the inbox for the next start: not lost.
  const missingFromConversation = result.ticks.filter(
    (tick) => tick.answered && !seen.has(`pulse ${new Date(tick.at).toISOString()}`),
  ).length;
  return { lost: lost.length, duplicated, missingFromConversation };
}

const CLEAN = { lost: 0, duplicated: 0, missingFromConversation: 0 };

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split("\n").find((row) => row.startsWith(`${name}{connection="pulse"}`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

async function waitForTicks(dir: string, count: number): Promise<void> {
  await until(async () => (await ledger(dir)).ticks.filter((tick) => tick.answered).length >= count, {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}

describe("schedules in a running daemon", () => {
  it(
    "fires a tick every second while the daemon runs, each once, and lists it in GET /v1/schedules",
    async () => {
      const llm = await startLoopbackLlm({ respond: () => ({ text: "noted" }) });
      defer(() => llm.close());
      const dir = bundle(llm.url, "catchUp: all");
      const daemon = await startDaemon(dir);
      await waitForTicks(dir, 3);
      const listed = (await (await fetch(`${daemon.base}/v1/schedules`)).json()) as {
        schedules: Record<string, unknown>[];
      };
      expect(listed.schedules[0]).toMatchObject({ connection: "pulse", every: "1s", timezone: "UTC", catchUp: "all" });
      expect(typeof listed.schedules[0]?.nextAt).toBe("string");
      expect(await metric(daemon.base, "goondan_schedule_ticks_fired_total")).toBeGreaterThanOrEqual(3);
      const run = await fetch(`${daemon.base}/v1/schedules/pulse/run`, { method: "POST" });
      expect(run.status).toBe(202);
      const unknown = await fetch(`${daemon.base}/v1/schedules/nope/run`, { method: "POST" });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("E_SCHEDULE_NOT_FOUND");
      daemon.proc.kill("SIGTERM");
      expect(await daemon.proc.exited).toBe(0);
      const result = await ledger(dir);
      const verdict = judge(result);
      console.log(`schedule while running: ${result.ticks.length} ticks, ${JSON.stringify(verdict)}`);
      expect(verdict).toEqual(CLEAN);
    },
    TEST_TIMEOUT_MS,
  );

  const modes: [mode: string, config: string][] = [
    ["none", "catchUp: none"],
    ["last", "catchUp: last"],
    ["all", "catchUp: all, catchUpMax: 100"],
  ];
  for (const [mode, config] of modes) {
    it(
      `across a stop of three seconds, catchUp ${mode} fires what it promises and loses nothing else`,
      async () => {
        const llm = await startLoopbackLlm({ respond: () => ({ text: "noted" }) });
        defer(() => llm.close());
        const dir = bundle(llm.url, config);
        let daemon = await startDaemon(dir);
        await waitForTicks(dir, 2);
        daemon.proc.kill("SIGTERM");
        expect(await daemon.proc.exited).toBe(0);
        const stoppedAfter = (await ledger(dir)).ticks.at(-1)?.at as number;
        await Bun.sleep(3500);
        daemon = await startDaemon(dir);
        const startedAt = Date.now();
        await until(async () => ((await ledger(dir)).ticks.at(-1)?.at ?? 0) > startedAt + 1000, { timeoutMs: 60_000 });
        const listed = (await (await fetch(`${daemon.base}/v1/schedules`)).json()) as {
          schedules: { caughtUp: number; missed: number }[];
        };
        const { caughtUp, missed } = listed.schedules[0] as { caughtUp: number; missed: number };
        const late = await metric(daemon.base, "goondan_schedule_ticks_late_total");
        daemon.proc.kill("SIGTERM");
        expect(await daemon.proc.exited).toBe(0);
        const result = await ledger(dir);
        // Down for 3.5 s and a start: at least three ticks came due while nothing ran.
        if (mode === "none")
          expect({ caughtUp, missedAtLeast3: missed >= 3 }).toEqual({ caughtUp: 0, missedAtLeast3: true });
        if (mode === "last")
          expect({ caughtUp, missedAtLeast2: missed >= 2 }).toEqual({ caughtUp: 1, missedAtLeast2: true });
        if (mode === "all")
          expect({ missed, caughtUpAtLeast3: caughtUp >= 3 }).toEqual({ missed: 0, caughtUpAtLeast3: true });
        expect(late).toBeGreaterThanOrEqual(caughtUp);
        // Skipping is what none and last promise for the down time; every other second is accepted once.
        const gap = mode === "all" ? undefined : { from: stoppedAfter, to: startedAt + 1000 };
        const verdict = judge(result, gap);
        console.log(
          `catchUp ${mode}: ${result.ticks.length} ticks, caught up ${caughtUp}, missed ${missed}, ${JSON.stringify(verdict)}`,
        );
        expect(verdict).toEqual(CLEAN);
      },
      TEST_TIMEOUT_MS,
    );
  }

  it(
    "after a SIGKILL of the orchestrator at a tick, catches up and repeats no tick",
    async () => {
      const llm = await startLoopbackLlm({ respond: () => ({ text: "noted" }) });
      defer(() => llm.close());
      const dir = bundle(llm.url, "catchUp: all, catchUpMax: 100");
      let daemon = await startDaemon(dir);
      await waitForTicks(dir, 2);
      // At a tick: a few milliseconds past a whole second, while that second's tick is being accepted.
      await Bun.sleep(1000 - (Date.now() % 1000) + 3);
      daemon.proc.kill("SIGKILL");
      await daemon.proc.exited;
      const killedAt = Date.now();
      daemon = await startDaemon(dir);
      await until(async () => ((await ledger(dir)).ticks.at(-1)?.at ?? 0) > killedAt + 2000, { timeoutMs: 60_000 });
      await waitForTicks(dir, (await ledger(dir)).ticks.length);
      daemon.proc.kill("SIGTERM");
      expect(await daemon.proc.exited).toBe(0);
      const result = await ledger(dir);
      const verdict = judge(result);
      console.log(`kill -9 at a tick: ${result.ticks.length} ticks, ${JSON.stringify(verdict)}`);
      expect(verdict).toEqual(CLEAN);
    },
    TEST_TIMEOUT_MS,
  );
});
