/**
 * Exactly once under chaos, with real processes, whether an agent's instances share its process or have one each: a coordinator hands each of 300 jobs to a worker through
 * `agents__request`, and the worker's tool appends the job's id to a file. While they run, a random agent child is
 * killed with SIGKILL every ~2 s, and once the orchestrator itself is killed with SIGKILL and started again on the
 * same state root. Afterwards every accepted event has exactly one answer (the right one), every job's side effect
 * happened exactly once, and the worker was asked once per job. The scripted model behaves as a careful model does:
 * told a tool call was interrupted, it checks the effect before calling the tool again.
 */
import { describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { stateDatabasePath } from "../../src/store/open-state-store.ts";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { startGoondanRun, type GoondanProcess } from "../helpers/goondan-process.ts";
import { delegationModel } from "../helpers/delegation-model.ts";
import { messageText, startLoopbackLlm } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
const JOBS = 300;
const DEADLINE_MS = 150_000;
const FIXTURE = new URL("../fixtures/chaos", import.meta.url).pathname;

async function start(dir: string, stateRoot: string, effectsFile: string) {
  return startGoondanRun({
    args: [dir, "--port", "0", "--state-root", stateRoot],
    env: { LOOPBACK_API_KEY: "chaos", GOONDAN_LOG_LEVEL: "info", CHAOS_EFFECTS_FILE: effectsFile },
    onSpawn: (proc: GoondanProcess) => defer(killChild(proc)),
  });
}

/** Counts answered jobs from the state database, read beside the running orchestrator (WAL readers never block it). */
async function answered(stateRoot: string, eventIds: string[]): Promise<number> {
  const store = new SqliteStore(stateDatabasePath(stateRoot), { existing: true });
  try {
    const open = new Set((await store.unanswered("chaos")).map((record) => record.event.id));
    return eventIds.filter((id) => !open.has(id)).length;
  } finally {
    await store.close();
  }
}

describe.each(["agent", "instance"])("exactly once under chaos, isolation: %s", (isolation) => {
  it(
    "answers each of 300 jobs once and runs each side effect once, through SIGKILLs of children and of the orchestrator",
    async () => {
      const work = mkdtempSync(join(tmpdir(), "goondan-chaos-"));
      defer(() => rmSync(work, { recursive: true, force: true }));
      const dir = join(work, "bundle");
      const stateRoot = join(work, "state");
      const effectsFile = join(work, "effects.txt");
      const respond = delegationModel({ effectsFile, workers: 4 });
      // Each answer takes 5-25 ms, so that the jobs overlap the kills.
      const llm = await startLoopbackLlm({
        respond: (request) => ({ ...respond(request), delayMs: 5 + Math.floor(Math.random() * 20) }),
      });
      defer(() => llm.close());
      cpSync(FIXTURE, dir, { recursive: true });
      const yaml = join(dir, "goondan.yaml");
      // Each agent's instances share its process (agent) or have one each (instance): a kill takes one or many.
      const fixture = readFileSync(yaml, "utf8").replace("__ENDPOINT__", llm.url);
      writeFileSync(yaml, fixture.replaceAll("  prompt: {", `  process: { isolation: ${isolation} }\n  prompt: {`));

      let daemon = await start(dir, stateRoot, effectsFile);
      const jobs = Array.from({ length: JOBS }, (_, i) => `job-${i}`);
      const eventIds: string[] = [];
      let submitting = true;
      let childKills = 0;
      let orchestratorKilled = false;

      // Jobs arrive over time; between two of them (none in flight) the orchestrator is killed and started again.
      const submitter = (async () => {
        for (const [i, job] of jobs.entries()) {
          if (i === Math.floor(JOBS * 0.4)) {
            daemon.proc.kill("SIGKILL");
            await daemon.proc.exited;
            orchestratorKilled = true;
            daemon = await start(dir, stateRoot, effectsFile);
          }
          const response = await fetch(`${daemon.base}/v1/events`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ input: job, instanceKey: `c-${i % 8}` }),
          });
          expect(response.status).toBe(202);
          eventIds.push(((await response.json()) as { eventId: string }).eventId);
          await Bun.sleep(20);
        }
        submitting = false;
      })();

      // Meanwhile a random agent child dies every ~2 s.
      const deadline = Date.now() + DEADLINE_MS;
      for (;;) {
        if (!submitting && (await answered(stateRoot, eventIds)) === JOBS) break;
        if (Date.now() > deadline)
          throw new Error(
            `only ${await answered(stateRoot, eventIds)} of ${eventIds.length} accepted jobs answered in ${DEADLINE_MS} ms`,
          );
        await Bun.sleep(1500 + Math.random() * 1000);
        const base = daemon.base;
        const listed = await fetch(`${base}/v1/processes`).catch(() => undefined);
        if (listed?.status !== 200) continue;
        const live = ((await listed.json()) as { processes: { kind: string; pid: number | null }[] }).processes.filter(
          (row) => row.kind === "agent" && row.pid !== null,
        );
        const victim = live[Math.floor(Math.random() * live.length)];
        if (victim?.pid) {
          try {
            process.kill(victim.pid, "SIGKILL");
            childKills += 1;
          } catch {
            // it exited meanwhile
          }
        }
      }
      await submitter;
      daemon.proc.kill("SIGTERM");
      expect(await daemon.proc.exited).toBe(0);
      expect(orchestratorKilled).toBe(true);
      expect(childKills).toBeGreaterThan(0);

      // Every side effect exactly once.
      const effects = readFileSync(effectsFile, "utf8").trim().split("\n");
      const counts = new Map<string, number>();
      for (const id of effects) counts.set(id, (counts.get(id) ?? 0) + 1);
      expect([...counts.entries()].filter(([, count]) => count !== 1)).toEqual([]);
      expect(counts.size).toBe(JOBS);

      // Every accepted event answered once, with its own job's answer; the worker asked once per job.
      const store = new SqliteStore(stateDatabasePath(stateRoot), { existing: true });
      defer(() => store.close());
      const records = await Promise.all(eventIds.map((id) => store.inboxRecord("chaos", id)));
      const wrong = records.flatMap((record, i) =>
        record?.outcome?.status === "ok" && record.outcome.response === `done job-${i}: did job-${i}`
          ? []
          : [{ job: i, outcome: record?.outcome }],
      );
      expect(wrong).toEqual([]);
      // The coordinator's requests, as the worker's inbox holds them: one per job (a resumed call reattached).
      const db = new Database(stateDatabasePath(stateRoot), { readonly: true });
      defer(() => db.close());
      const sent = db
        .query(
          "SELECT json_extract(event, '$.input') AS input FROM inbox WHERE swarm = 'chaos' AND json_extract(event, '$.type') = 'agent.request'",
        )
        .all() as { input: string }[];
      const asked = new Map<string, number>();
      for (const { input } of sent) asked.set(input, (asked.get(input) ?? 0) + 1);
      expect([...asked.entries()].filter(([, count]) => count !== 1)).toEqual([]);
      expect(asked.size).toBe(JOBS);
      const interrupted = llm.requests.filter((request) =>
        messageText(request.body.messages.at(-1)).includes("E_TOOL_INTERRUPTED"),
      ).length;
      console.log(
        `chaos (isolation: ${isolation}): ${JOBS} jobs, ${childKills} child kills, 1 orchestrator kill; ${effects.length} side effects, ${llm.requests.length} model calls, ${interrupted} interrupted tool calls shown to the model`,
      );
    },
    DEADLINE_MS + 30_000,
  );
});
