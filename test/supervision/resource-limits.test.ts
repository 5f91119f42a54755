/**
 * What holds an agent's `spec.limits` (docs/limits.md#resource-limits): a cgroup v2 where the hierarchy offers the
 * memory, cpu and pids controllers and can be written (here a directory standing in for /sys/fs/cgroup), else
 * rlimits and the /proc watchdog, as `goondan doctor` says; and the watchdog ending a process tree over its memory.
 */
import { describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkLimits } from "../../src/cli/commands/doctor.ts";
import { joinCgroup } from "../../src/supervision/cgroup-v2.ts";
import { applyLimits, limitSupport, releaseLimits } from "../../src/supervision/resource-limits.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

function fakeRoot(controllers: string): string {
  const root = mkdtempSync(join(tmpdir(), "goondan-cgroup-"));
  defer(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, "cgroup.controllers"), controllers);
  writeFileSync(join(root, "cgroup.subtree_control"), "");
  return root;
}

describe("limitSupport", () => {
  it("uses cgroup v2 where the hierarchy offers memory, cpu and pids, enabling them on the way down", () => {
    const root = fakeRoot("cpuset cpu io memory pids");
    // On cgroupfs a new group comes with its files; here the test makes goondan's.
    mkdirSync(join(root, "goondan"));
    writeFileSync(join(root, "goondan", "cgroup.subtree_control"), "");
    const support = limitSupport(root);
    expect(support.mechanism).toBe("cgroup-v2");
    expect(readFileSync(join(root, "cgroup.subtree_control"), "utf8")).toBe("+memory +cpu +pids");
    expect(checkLimits(support).outcome).toBe("ok");
  });

  it("falls back to rlimits where a controller is missing or the hierarchy is not v2, and doctor warns", () => {
    expect(limitSupport(fakeRoot("cpu pids")).mechanism).toBe("rlimit");
    const notV2 = mkdtempSync(join(tmpdir(), "goondan-cgroup-"));
    defer(() => rmSync(notV2, { recursive: true, force: true }));
    const support = limitSupport(notV2);
    expect(support.mechanism).toBe("rlimit");
    expect(checkLimits(support).outcome).toBe("warn");
  });

  it("writes a group's limits and moves the process in", () => {
    const parent = fakeRoot("memory cpu pids");
    const group = joinCgroup({
      parent,
      name: "agent-1",
      // Above any pid_max (2^22): no such process, so no children of it on this machine are moved in too.
      pid: 4_194_305,
      limits: { memoryBytes: 1 << 28, cpu: 0.5, maxProcesses: 16 },
    });
    expect(readFileSync(join(group, "memory.max"), "utf8")).toBe(String(1 << 28));
    expect(readFileSync(join(group, "memory.oom.group"), "utf8")).toBe("1");
    expect(readFileSync(join(group, "cpu.max"), "utf8")).toBe("50000 100000");
    expect(readFileSync(join(group, "pids.max"), "utf8")).toBe("16");
    expect(readFileSync(join(group, "cgroup.procs"), "utf8")).toBe("4194305");
  });
});

describe("the /proc watchdog", () => {
  it("kills a process tree that goes over its memory and says so once it has ended", async () => {
    const root = mkdtempSync(join(tmpdir(), "goondan-cgroup-"));
    defer(() => rmSync(root, { recursive: true, force: true }));
    // A shell whose child keeps 200 MiB: the limit is on the tree, not on the process spawned.
    const child = Bun.spawn(["sh", "-c", "head -c 209715200 /dev/zero | tail -c 209715200 >/dev/null; sleep 30"]);
    const { mechanism } = applyLimits(child.pid, { memoryMb: 64 }, { cgroupRoot: root, intervalMs: 50 });
    expect(mechanism).toBe("rlimit");
    await child.exited;
    expect(releaseLimits(child.pid)?.code).toBe("E_LIMIT_MEMORY");
  }, 30_000);

  it("kills a process tree that runs more processes than maxProcesses", async () => {
    const root = mkdtempSync(join(tmpdir(), "goondan-cgroup-"));
    defer(() => rmSync(root, { recursive: true, force: true }));
    const child = Bun.spawn(["sh", "-c", "for i in 1 2 3 4 5 6; do sleep 30 & done; wait"]);
    applyLimits(child.pid, { maxProcesses: 4 }, { cgroupRoot: root, intervalMs: 50 });
    await child.exited;
    expect(releaseLimits(child.pid)?.code).toBe("E_LIMIT_PROCESSES");
  }, 30_000);

  it("leaves a tree within its limits alone and says nothing when it ends", async () => {
    const root = mkdtempSync(join(tmpdir(), "goondan-cgroup-"));
    defer(() => rmSync(root, { recursive: true, force: true }));
    const child = Bun.spawn(["sh", "-c", "sleep 0.5"]);
    applyLimits(child.pid, { memoryMb: 256, maxProcesses: 8 }, { cgroupRoot: root, intervalMs: 50 });
    await child.exited;
    expect(releaseLimits(child.pid)).toBeUndefined();
  }, 30_000);
});
