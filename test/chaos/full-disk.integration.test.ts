/**
 * A full disk under load, with real processes: the state root is a 16 MiB tmpfs, the chaos fixture's coordinator
 * hands each job to a worker whose tool appends the job's id to a file outside it, and while jobs keep arriving the
 * tmpfs is filled to the last byte, then freed again, all without restarting goondan. A client sends each job until
 * it is done (a refused one again after Retry-After, as a client should). Afterwards: every refused POST was
 * `503 E_STORE_UNAVAILABLE` with Retry-After (never a 500); no job's side effect ran without its event stored (a job
 * refused and sent again would otherwise have run twice); every side effect ran exactly once; every accepted event
 * was answered (none left "accepted"); and children did not restart in a storm. Needs `mount -t tmpfs` (root):
 * without it the test is skipped visibly, and under CI=true it fails.
 */
import { describe, expect, it } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { delegationModel } from "../helpers/delegation-model.ts";
import { startGoondanRun, until, type GoondanProcess } from "../helpers/goondan-process.ts";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
const FIXTURE = new URL("../fixtures/chaos", import.meta.url).pathname;
const FULL_MS = 20_000;
const DEADLINE_MS = 150_000;

/** Mounts a 16 MiB tmpfs at `dir`; the reason when it cannot. */
function mountTmpfs(dir: string): string | undefined {
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", dir], { encoding: "utf8" });
  if (mounted.status === 0) return undefined;
  return `mount -t tmpfs failed (${(mounted.stderr || mounted.error?.message || "").trim()}); it needs root`;
}

/** Fills the file system of `file` to its last byte; returns the bytes written. */
function fill(file: string): number {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (let size = chunk.length; size >= 512; ) {
      try {
        written += writeSync(fd, chunk, 0, size);
      } catch {
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

type Sent = { status: number; eventId?: string; code?: string; retryAfter?: string | null };

const probe = (() => {
  const work = mkdtempSync(join(tmpdir(), "goondan-tmpfs-probe-"));
  const reason = mountTmpfs(work);
  if (reason === undefined) spawnSync("umount", [work]);
  rmSync(work, { recursive: true, force: true });
  if (reason !== undefined) {
    if (process.env.CI === "true") throw new Error(`the full-disk test must run under CI: ${reason}`);
    console.warn(`skipping the full-disk test: ${reason}`);
  }
  return reason;
})();

describe("a full state root under load", () => {
  it.skipIf(probe !== undefined)(
    "refuses what it cannot store with 503 E_STORE_UNAVAILABLE, runs nothing unstored, nothing twice, and recovers without a restart",
    async () => {
      const work = mkdtempSync(join(tmpdir(), "goondan-full-disk-"));
      defer(() => rmSync(work, { recursive: true, force: true }));
      const dir = join(work, "bundle");
      const stateRoot = join(work, "state");
      mkdirSync(stateRoot);
      expect(mountTmpfs(stateRoot)).toBeUndefined();
      defer(() => void spawnSync("umount", ["-l", stateRoot]));
      const effectsFile = join(work, "effects.txt");
      const respond = delegationModel({ effectsFile, workers: 4 });
      const llm = await startLoopbackLlm({
        respond: (request) => ({ ...respond(request), delayMs: 5 + Math.floor(Math.random() * 20) }),
      });
      defer(() => llm.close());
      cpSync(FIXTURE, dir, { recursive: true });
      const yaml = join(dir, "goondan.yaml");
      writeFileSync(yaml, readFileSync(yaml, "utf8").replace("__ENDPOINT__", llm.url));
      const daemon = await startGoondanRun({
        args: [dir, "--port", "0", "--state-root", stateRoot],
        env: { LOOPBACK_API_KEY: "full-disk", GOONDAN_LOG_LEVEL: "info", CHAOS_EFFECTS_FILE: effectsFile },
        onSpawn: (proc: GoondanProcess) => defer(killChild(proc)),
        readyTimeoutMs: 60_000,
      });

      // On a failure, what the daemon logged (warnings and up) and its database are kept for a look.
      let passed = false;
      defer(() => {
        if (passed) return;
        const keep = join(tmpdir(), `goondan-full-disk-failed-${Date.now()}`);
        mkdirSync(keep, { recursive: true });
        const warnings = daemon.lines.filter((line) => Number(line.level) >= 40);
        writeFileSync(join(keep, "warnings.jsonl"), warnings.map((line) => JSON.stringify(line)).join("\n"));
        for (const name of ["goondan.db", "goondan.db-wal"])
          if (existsSync(join(stateRoot, name))) cpSync(join(stateRoot, name), join(keep, name));
        console.warn(`full-disk: kept the daemon's warnings and database in ${keep}`);
      });

      const post = async (job: string, i: number): Promise<Sent> => {
        const response = await fetch(`${daemon.base}/v1/events`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: job, instanceKey: `c-${i % 8}` }),
        });
        const body = (await response.json()) as { eventId?: string; error?: { code: string } };
        return {
          status: response.status,
          ...(body.eventId === undefined ? {} : { eventId: body.eventId }),
          ...(body.error === undefined ? {} : { code: body.error.code }),
          retryAfter: response.headers.get("retry-after"),
        };
      };
      const state = async (eventId: string) => {
        const response = await fetch(`${daemon.base}/v1/events/${eventId}`);
        return (await response.json()) as { state: string; response?: string };
      };

      // The client: each job is sent until its event is stored and answered with the job done.
      const accepted = new Map<string, string[]>(); // job -> its stored events
      const refusals: Sent[] = [];
      const answers = new Map<string, { state: string; response?: string }>(); // eventId -> answer
      const done = new Set<string>();
      const jobs: string[] = [];
      let phase: "filling" | "full" | "freed" = "filling";
      const filler = join(stateRoot, "filler");

      const runJob = async (job: string, i: number) => {
        for (;;) {
          const sent = await post(job, i);
          if (sent.status === 202 && sent.eventId) {
            accepted.set(job, [...(accepted.get(job) ?? []), sent.eventId]);
            const answer = await until(
              async () => {
                const now = await state(sent.eventId as string);
                return now.state === "accepted" || now.state === "running" ? undefined : now;
              },
              { timeoutMs: DEADLINE_MS, intervalMs: 200 },
            );
            answers.set(sent.eventId, {
              state: answer.state,
              ...(answer.response === undefined ? {} : { response: answer.response }),
            });
            if (answer.response === `done ${job}: did ${job}`) return void done.add(job);
          } else refusals.push(sent);
          await Bun.sleep(sent.status === 503 ? Number(sent.retryAfter ?? 1) * 200 : 200);
        }
      };

      const running: Promise<void>[] = [];
      const started = Date.now();
      let i = 0;
      let fullSince = 0;
      let restartsWhenFull = new Map<string, number>();
      const restarts = async () => {
        const listed = (await (await fetch(`${daemon.base}/v1/processes`)).json()) as {
          processes: { kind: string; agent?: string; instanceKey?: string; restarts: number }[];
        };
        return new Map(
          listed.processes
            .filter((row) => row.kind === "agent")
            .map((row) => [`${row.agent}/${row.instanceKey}`, row.restarts] as const),
        );
      };
      let afterFreed = 0;
      while (phase !== "freed" || afterFreed++ < 20) {
        const job = `job-${i}`;
        jobs.push(job);
        running.push(runJob(job, i));
        i += 1;
        // About 150 jobs in all: their state (some 40 KB each, runtime events included) fits the 16 MiB once freed.
        await Bun.sleep(150);
        const elapsed = Date.now() - started;
        if (phase === "filling" && elapsed > 2_000) {
          fill(filler);
          phase = "full";
          fullSince = Date.now();
          restartsWhenFull = await restarts();
        } else if (phase === "full" && Date.now() - fullSince > FULL_MS) {
          const now = await restarts();
          const whileFull = [...now].map(([address, count]) => count - (restartsWhenFull.get(address) ?? 0));
          // No storm: store faults back off (1, 2, 4, 8, 16 s...), never restart at once: at most 5 in 20 s each.
          expect(Math.max(0, ...whileFull)).toBeLessThanOrEqual(6);
          console.log(
            `full-disk: ${whileFull.reduce((a, b) => a + b, 0)} agent restarts over ${now.size} instances while full for ${FULL_MS} ms (at most ${Math.max(0, ...whileFull)} for one)`,
          );
          rmSync(filler);
          phase = "freed";
        }
      }
      await Promise.all(running);
      expect(daemon.proc.exitCode).toBeNull(); // recovered without a restart

      // Refused POSTs were 503 E_STORE_UNAVAILABLE with Retry-After, never a 500.
      expect(refusals.length).toBeGreaterThan(0);
      expect(refusals.filter((sent) => sent.status !== 503 || sent.code !== "E_STORE_UNAVAILABLE")).toEqual([]);
      expect(refusals.every((sent) => sent.retryAfter !== null)).toBe(true);

      // Every side effect once, and only for a job whose event was stored.
      const effects = existsSync(effectsFile) ? readFileSync(effectsFile, "utf8").trim().split("\n") : [];
      const counts = new Map<string, number>();
      for (const id of effects) counts.set(id, (counts.get(id) ?? 0) + 1);
      expect([...counts.entries()].filter(([, count]) => count !== 1)).toEqual([]);
      expect([...counts.keys()].filter((job) => !accepted.has(job))).toEqual([]);
      expect(done.size).toBe(jobs.length);
      expect(counts.size).toBe(jobs.length);
      // Every stored event was answered (none left accepted).
      const stored = [...accepted.values()].flat();
      expect(stored.filter((eventId) => !answers.has(eventId))).toEqual([]);

      daemon.proc.kill("SIGTERM");
      expect(await daemon.proc.exited).toBe(0);
      passed = true;
      console.log(
        `full-disk: ${jobs.length} jobs, ${stored.length} events stored, ${refusals.length} refused with 503, ${effects.length} side effects`,
      );
    },
    DEADLINE_MS + 60_000,
  );
});
