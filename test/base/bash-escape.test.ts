import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killMarkedProcesses } from "../../src/base/tools/kill-marked-processes.ts";
import { RUN_MARKER_NAME } from "../../src/base/tools/run-marked-process.ts";
import { parseProcStat, procStatEnded } from "../../src/shared/proc-stat.ts";
import { pidsWithCommandLine } from "../helpers/goondan-process.ts";
import { baseTools, errorOf, okOutput, type BaseToolHarness } from "./base-tools.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const onLinux = process.platform === "linux";
const hasSetsid = existsSync("/usr/bin/setsid");

let workdir: string;
let tools: BaseToolHarness;
const leftovers: number[] = [];

/** Gone from /proc, or a zombie (it runs nothing; a container's pid 1 may never reap orphans). */
async function isDead(pid: number): Promise<boolean> {
  try {
    const stat = parseProcStat(await readFile(`/proc/${pid}/stat`, "utf8"));
    return stat !== undefined && procStatEnded(stat);
  } catch {
    return true;
  }
}

/** True as soon as the pid is gone, false if it still runs after `waitMs`. */
async function isGone(pid: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (await isDead(pid)) return true;
    if (Date.now() >= deadline) return false;
    await Bun.sleep(20);
  }
}

/**
 * The pids, as this process sees them, of the processes whose command line names `file` (an escapee's pid
 * file), once the escapee has written it. A command in the PID namespace sandbox knows only its pid inside
 * the namespace, so the pid it writes means nothing out here: the file is only the sign that it started.
 */
async function escapees(file: string): Promise<number[]> {
  const deadline = Date.now() + 2000;
  while (!/^\d+\s*$/.test(await readFile(file, "utf8").catch(() => ""))) {
    if (Date.now() >= deadline) throw new Error(`no pid in ${file}`);
    await Bun.sleep(20);
  }
  const pids = pidsWithCommandLine(file);
  leftovers.push(...pids);
  return pids;
}

async function allGone(pids: number[], waitMs: number): Promise<boolean> {
  for (const pid of pids) if (!(await isGone(pid, waitMs))) return false;
  return true;
}

/** A sleep whose command line no other process has, found from out here by that command line. */
function uniqueSleep(): { command: string; pids: () => number[] } {
  const command = `sleep 30.${randomBytes(3).readUIntBE(0, 3)}`;
  return {
    command,
    pids: () => {
      const pids = pidsWithCommandLine(command).filter((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep"),
      );
      leftovers.push(...pids);
      return pids;
    },
  };
}

function spawnSleeper(env: Record<string, string>): number {
  const proc = Bun.spawn(["sleep", "30"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdout: "ignore",
    stderr: "ignore",
    detached: true,
  });
  leftovers.push(proc.pid);
  return proc.pid;
}

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), "goondan-bash-escape-"));
  // Writes its pid, lives one second, then leaves a file behind: the file must never appear.
  await writeFile(join(workdir, "escapee.sh"), 'echo $$ > "$1"; sleep 1; echo alive > "$2"\n');
  tools = await baseTools({ context: { workdir } });
});

afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

afterAll(async () => {
  await rm(workdir, { recursive: true, force: true });
});

describe.skipIf(!onLinux)("killMarkedProcesses", () => {
  it("kills a process carrying the exact marker entry and spares unmarked and look-alike ones", async () => {
    const id = randomBytes(8).toString("hex");
    const marked = spawnSleeper({ TEST_RUN_MARK: id });
    const unmarked = spawnSleeper({ OTHER: id });
    const lookalike = spawnSleeper({ TEST_RUN_MARK: `${id}x` });
    await Bun.sleep(50);
    expect(await killMarkedProcesses({ marker: `TEST_RUN_MARK=${id}` })).toBe(1);
    expect(await isGone(marked, 1000)).toBe(true);
    expect(await isGone(unmarked, 0)).toBe(false);
    expect(await isGone(lookalike, 0)).toBe(false);
  });

  it("leaves out members of the excepted process group, and finds nobody for an unused marker", async () => {
    const id = randomBytes(8).toString("hex");
    const leader = spawnSleeper({ TEST_RUN_MARK: id });
    await Bun.sleep(50);
    expect(await killMarkedProcesses({ marker: `TEST_RUN_MARK=${id}`, exceptProcessGroup: leader })).toBe(0);
    expect(await isGone(leader, 0)).toBe(false);
    expect(await killMarkedProcesses({ marker: `TEST_RUN_MARK=${randomBytes(8).toString("hex")}` })).toBe(0);
  });

  it("sweeps again to catch a process that appears during the kill, counting each once", async () => {
    const id = randomBytes(8).toString("hex");
    const first = spawnSleeper({ TEST_RUN_MARK: id });
    await Bun.sleep(50);
    let late: number | undefined;
    const sent: number[] = [];
    const count = await killMarkedProcesses({
      marker: `TEST_RUN_MARK=${id}`,
      passPauseMs: 50,
      kill: (pid) => {
        sent.push(pid);
        process.kill(pid, "SIGKILL");
        late ??= spawnSleeper({ TEST_RUN_MARK: id });
      },
    });
    expect(count).toBe(2);
    expect(late).toBeDefined();
    expect(new Set(sent)).toEqual(new Set([first, late!]));
    expect(await isGone(late!, 1000)).toBe(true);
  });

  it("refuses a marker that is not a NAME=value entry", async () => {
    await expect(killMarkedProcesses({ marker: "NO_EQUALS_SIGN" })).rejects.toMatchObject({ code: "E_MARKER_INVALID" });
  });
});

describe.skipIf(!onLinux || !hasSetsid)("bash__exec with processes that escape the process group", () => {
  it("kills a setsid escapee on timeout, though it left the group", async () => {
    const pidFile = join(workdir, "setsid.pid");
    const marker = join(workdir, "setsid.alive");
    const started = Date.now();
    const output = okOutput(
      await tools.call("bash__exec", {
        command: `setsid sh escapee.sh ${pidFile} ${marker} & sleep 30`,
        timeoutMs: 300,
      }),
    );
    expect(output.timedOut).toBe(true);
    expect(output.escapedKilled).toBeGreaterThanOrEqual(1); // the escaped shell, and its sleep once started
    expect(String(output.note)).toContain("left the process group");
    expect(await allGone(await escapees(pidFile), 1000)).toBe(true);
    await Bun.sleep(Math.max(0, 1500 - (Date.now() - started)));
    expect(existsSync(marker)).toBe(false);
  });

  it("kills a nohup + setsid double fork on timeout", async () => {
    const pidFile = join(workdir, "double.pid");
    const marker = join(workdir, "double.alive");
    const started = Date.now();
    const command = `nohup setsid sh -c 'sh escapee.sh ${pidFile} ${marker} & exit 0' >/dev/null 2>&1 & sleep 30`;
    const output = okOutput(await tools.call("bash__exec", { command, timeoutMs: 300 }));
    expect(output.timedOut).toBe(true);
    expect(output.escapedKilled).toBeGreaterThanOrEqual(1);
    expect(await allGone(await escapees(pidFile), 1000)).toBe(true);
    await Bun.sleep(Math.max(0, 1500 - (Date.now() - started)));
    expect(existsSync(marker)).toBe(false);
  });

  it("kills escapees when the call is cancelled through ctx.signal", async () => {
    const pidFile = join(workdir, "cancel.pid");
    const marker = join(workdir, "cancel.alive");
    const started = Date.now();
    const parent = new AbortController();
    setTimeout(() => parent.abort(), 300);
    const result = await tools.call(
      "bash__exec",
      { command: `setsid sh escapee.sh ${pidFile} ${marker} >/dev/null 2>&1 & sleep 30` },
      { parentSignal: parent.signal },
    );
    expect(errorOf(result).code).toBe("E_TOOL_CANCELLED");
    expect(await allGone(await escapees(pidFile), 1000)).toBe(true);
    await Bun.sleep(Math.max(0, 1500 - (Date.now() - started)));
    expect(existsSync(marker)).toBe(false);
  });

  it("leaves a detached background job running when the command finishes normally, marked with the run id", async () => {
    // The short sleep lets setsid leave the group before the shell exits: the group itself is killed on exit.
    const sleeper = uniqueSleep();
    const output = okOutput(
      await tools.call("bash__exec", { command: `setsid ${sleeper.command} >/dev/null 2>&1 & sleep 0.2` }),
    );
    expect(output.exitCode).toBe(0);
    expect(output.escapedKilled).toBeUndefined();
    await Bun.sleep(300);
    const [pid] = sleeper.pids();
    expect(pid).toBeDefined();
    expect(await isGone(pid!, 0)).toBe(false);
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    expect(environ.some((entry) => new RegExp(`^${RUN_MARKER_NAME}=[0-9a-f]{24}$`).test(entry))).toBe(true);
  });

  it("gives each run its own marker, so stopping one run never kills another run's processes", async () => {
    const survivor = uniqueSleep();
    okOutput(await tools.call("bash__exec", { command: `setsid ${survivor.command} >/dev/null 2>&1 & sleep 0.2` }));
    const [pid] = survivor.pids();
    expect(pid).toBeDefined();
    const stopped = okOutput(
      await tools.call("bash__exec", { command: "setsid sleep 30 >/dev/null 2>&1 & sleep 30", timeoutMs: 300 }),
    );
    expect(stopped.escapedKilled).toBe(1);
    expect(await isGone(pid!, 0)).toBe(false);
  });
});
