/**
 * bash commands run in the agent process's own PID namespace (src/tools/pid-namespace-sandbox.ts): they see
 * only the sandbox's processes, so no other process's environment or command line is in reach; detached jobs
 * live on in it between commands; as root they cannot unmount its /proc; `isolation: none` opts out,
 * `required` refuses to run unisolated, and `auto` warns once when the machine allows no namespace. The
 * end-to-end proof through `goondan run` (node and bun launchers, root and non-root) is
 * test/base/bash-secrets.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandSandbox, isolateCommand, resetIsolationWarning } from "../../src/base/tools/command-isolation.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { parseProcStat } from "../../src/shared/proc-stat.ts";
import { PidNamespaceSandbox } from "../../src/tools/pid-namespace-sandbox.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { baseTools, errorOf, okOutput, type BaseToolHarness } from "./base-tools.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const onLinux = process.platform === "linux";
const isRoot = process.getuid?.() === 0;
let workdir: string;
let tools: BaseToolHarness;
let open: BaseToolHarness;
const secret = `sk-isolation-${randomBytes(8).toString("hex")}`;
let witness: Bun.Subprocess | undefined;

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), "goondan-bash-isolation-"));
  tools = await baseTools({ context: { workdir } });
  open = await baseTools({ context: { workdir }, config: { bash: { isolation: "none" } } });
  // A process of ours outside the sandbox, holding a secret in its environment and its command line.
  witness = Bun.spawn(["/bin/sh", "-c", "sleep 60; :", secret], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", WITNESS_KEY: secret },
    stdout: "ignore",
    stderr: "ignore",
  });
  expect((await commandSandbox.probe()).isolated).toBe(true);
});

afterAll(async () => {
  witness?.kill("SIGKILL");
  await rm(workdir, { recursive: true, force: true });
});

/** Host pids of our sandbox holders: children of this process running unshare. */
function holderPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseProcStat(readFileSync(`/proc/${entry}/stat`, "utf8"));
      if (stat?.ppid !== process.pid || stat.state === "Z") continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("unshare")) pids.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

/**
 * A shell loop that reads every /proc/<pid>/environ and cmdline it can and prints "FOUND <where>" for each
 * that holds `needle`, then how many environments it read. The pattern brackets the needle's last character,
 * so the scan's own command line never matches itself.
 */
function scanFor(needle: string): string {
  const pattern = `${needle.slice(0, -1)}[${needle.slice(-1)}]`;
  return `n=0; for d in /proc/[0-9]*; do if tr "\\0" "\\n" < $d/environ 2>/dev/null | grep -q "${pattern}"; then echo "FOUND $d/environ"; fi; if tr "\\0" " " < $d/cmdline 2>/dev/null | grep -q "${pattern}"; then echo "FOUND $d/cmdline"; fi; if cat $d/environ >/dev/null 2>&1; then n=$((n+1)); fi; done; echo "read $n"`;
}

describe.skipIf(!onLinux)("bash commands in their own PID namespace", () => {
  it("see only the sandbox's processes: no other process's environment or command line, with pid 1 the sandbox's", async () => {
    const output = okOutput(
      await tools.call("bash__exec", { command: `${scanFor(secret)}; tr "\\0" " " < /proc/1/cmdline` }),
    );
    expect(String(output.stdout)).not.toContain("FOUND");
    expect(String(output.stdout)).toMatch(/read [1-9]\d*\n/); // the scan did read environments: the sandbox's own
    expect(String(output.stdout)).toContain("goondan-sandbox");
    // The same scan with isolation: none finds the witness: the secret is in reach of an unisolated command.
    expect(String(okOutput(await open.call("bash__exec", { command: scanFor(secret) })).stdout)).toContain("FOUND");
  }, 20_000);

  it("cannot reach a process outside by its pid", async () => {
    const output = okOutput(
      await tools.call("bash__exec", {
        command: `cat /proc/${witness!.pid}/environ; kill -0 ${process.pid} && echo reached`,
      }),
    );
    expect(String(output.stdout)).not.toContain(secret);
    expect(String(output.stdout)).not.toContain("reached");
  });

  it.skipIf(!isRoot)(
    "as root cannot unmount the sandbox's /proc to uncover the host's, nor mount another",
    async () => {
      const output = okOutput(
        await tools.call("bash__exec", {
          command: `umount /proc || umount -l /proc; mount -t proc proc /mnt; ${scanFor(secret)}`,
        }),
      );
      expect(String(output.stdout)).not.toContain("FOUND");
      expect(String(output.stderr)).toContain("umount");
    },
  );

  it("keeps a detached job alive between commands, inside the sandbox", async () => {
    const nap = `3000.${randomBytes(2).readUInt16BE(0)}`;
    okOutput(await tools.call("bash__exec", { command: `setsid sleep ${nap} >/dev/null 2>&1 & sleep 0.2` }));
    const seen = okOutput(
      await tools.call("bash__exec", { command: `grep -l "${nap}" /proc/[0-9]*/cmdline 2>/dev/null | head -1` }),
    );
    expect(String(seen.stdout)).toMatch(/^\/proc\/\d+\/cmdline\n$/);
    okOutput(
      await tools.call("bash__exec", {
        command: `pkill -f "sleep ${nap}" || kill $(grep -l "${nap}" /proc/[0-9]*/cmdline | cut -d/ -f3)`,
      }),
    );
  });

  it("starts a new sandbox when the old one was stopped", async () => {
    // The command waits to be killed with the namespace: when the call returns, pid 1 is gone (not merely asked to go).
    okOutput(await tools.call("bash__exec", { command: "kill -TERM 1; sleep 10" }));
    await Bun.sleep(200);
    const output = okOutput(await tools.call("bash__exec", { command: "tr '\\0' ' ' < /proc/1/cmdline" }));
    expect({ stdout: String(output.stdout), stderr: String(output.stderr) }).toMatchObject({
      stdout: expect.stringContaining("goondan-sandbox"),
    });
  });

  it("starts a new sandbox at once when pid 1 is gone but its holder has not exited yet", async () => {
    okOutput(await tools.call("bash__exec", { command: "true" }));
    // Hold the holder (unshare) stopped, so it cannot reap the namespace's pid 1 nor exit: the window in which
    // only /proc knows the namespace is dead.
    const holder = holderPids();
    expect(holder).toHaveLength(1);
    process.kill(holder[0]!, "SIGSTOP");
    // The command waits to be killed with the namespace: when the call returns, pid 1 is gone (not merely asked to go).
    okOutput(await tools.call("bash__exec", { command: "kill -TERM 1; sleep 10" }));
    const output = okOutput(await tools.call("bash__exec", { command: "tr '\\0' ' ' < /proc/1/cmdline" }));
    expect({ stdout: String(output.stdout), stderr: String(output.stderr) }).toMatchObject({
      stdout: expect.stringContaining("goondan-sandbox"),
    });
    expect(holderPids()).not.toContain(holder[0]);
  });
});

describe("config.isolation", () => {
  const unavailable = new PidNamespaceSandbox({ helperPath: "/nonexistent" });
  const command = { argv: ["/bin/sh", "-c", "true"], cwd: "/", env: { PATH: "/usr/bin:/bin" } };
  const context = (isolation: string | undefined, warnings: unknown[] = []): ToolContext =>
    ({
      config: isolation === undefined ? {} : { isolation },
      logger: { ...silentLogger, warn: (...args: unknown[]) => void warnings.push(args) },
    }) as unknown as ToolContext;

  it("required: refuses to run a command where no namespace can be had", async () => {
    await expect(isolateCommand({ ctx: context("required"), command, sandbox: unavailable })).rejects.toMatchObject({
      code: "E_BASH_ISOLATION_UNAVAILABLE",
    });
  });

  it("auto (the default): runs it as is, with one warning per process that names what is then in reach", async () => {
    resetIsolationWarning();
    const warnings: unknown[] = [];
    expect(await isolateCommand({ ctx: context(undefined, warnings), command, sandbox: unavailable })).toEqual(command);
    expect(await isolateCommand({ ctx: context("auto", warnings), command, sandbox: unavailable })).toEqual(command);
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain("GOONDAN_API_TOKEN");
    expect(JSON.stringify(warnings[0])).toContain("unshare (util-linux / coreutils) is not installed");
  });

  it("none: runs it as is without looking for a namespace", async () => {
    expect(await isolateCommand({ ctx: context("none"), command, sandbox: unavailable })).toEqual(command);
  });

  it.skipIf(!onLinux)("required: runs the command where the machine allows a namespace", async () => {
    const strict = await baseTools({ context: { workdir }, config: { bash: { isolation: "required" } } });
    expect(okOutput(await strict.call("bash__exec", { command: "echo ok" })).stdout).toBe("ok\n");
    expect(errorOf(await strict.call("bash__exec", { command: "true", shell: "/nonexistent" })).code).toBe(
      "E_BASH_SHELL_NOT_FOUND",
    );
  });
});
