/**
 * A sandbox for the processes a bundle starts in an agent process (bash commands, MCP stdio servers), so that
 * none can see, let alone read, any other process: not the agent, not the orchestrator, not the `node
 * bin/goondan` launcher or `npx`, whose environments hold the model API keys and GOONDAN_API_TOKEN. /proc
 * inside shows only the sandbox's own processes. What else it withholds is its profile (sandbox-profile.ts):
 * by default the network (own network namespace, so the daemon's API on 127.0.0.1 is out of reach), and, when
 * given, the state root (goondan.db, the API token) under an empty read-only tmpfs.
 *
 * The first entry starts a holder (util-linux, no extra package): `setpriv --pdeathsig KILL unshare --pid
 * --fork --mount-proc --kill-child [--net]` (when not root, inside a user namespace: see holderArgv), whose
 * pid 1 is a small sh loop that reaps orphans. Every command then enters it with `nsenter` and starts from an
 * empty environment (`env -i` inside the namespace, so no variable the command is given ever reaches a
 * process outside it). Jobs a command detaches stay alive in the namespace between commands, as they would
 * outside; the namespace, with everything in it, ends with the agent process (parent-death signal, and the
 * holder's stdin pipe reaching end of file) or when its pid 1 is stopped, and the next command starts a new one.
 *
 * As root, each command also runs with a reduced capability bounding set (bash: the set Docker gives a
 * container's root, without mknod; MCP servers: none), so it cannot unmount the namespace's /proc or the tmpfs
 * to uncover what they cover, nor enter other namespaces. Without root, the command runs in a user namespace
 * as the same user with no capabilities, and the mounts stay locked.
 *
 * Where the machine refuses namespaces (a container without the right to create them, a host that forbids
 * unprivileged user namespaces) `enter` says why, and the caller decides (sandbox-pool.ts: by its `isolation`).
 */
import { readFileSync, readlinkSync } from "node:fs";
import { onlyChild } from "../shared/only-child.ts";
import { parseProcStat, procStatEnded, type ProcStat } from "../shared/proc-stat.ts";
import {
  describeProfile,
  enterArgv,
  holderArgv,
  legacy,
  setupEnv,
  type SandboxHelpers,
  type SandboxProfile,
} from "./sandbox-profile.ts";
import { launcherArgv } from "./sandbox-launcher.ts";

export type { SandboxCapabilities, SandboxNetwork, SandboxProfile } from "./sandbox-profile.ts";

/** PATH used to find the helpers and given to them; never the agent's own. */
const HELPER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const START_TIMEOUT_MS = 5000;

interface Holder {
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  helpers: SandboxHelpers;
  root: boolean;
  /** The host pid of the namespace's pid 1 (the holder's one child), when /proc could say. */
  init: number | undefined;
}

export interface SandboxLauncher {
  isolated: true;
  argv: string[];
  argvFor: (paths: Pick<SandboxProfile, "keep" | "readOnly">) => string[];
  description: string;
  hides: boolean;
}

export type SandboxEntry =
  | { isolated: true; argv: string[]; env: Record<string, string>; description: string }
  | { isolated: false; reason: string };

function findHelpers(searchPath: string): SandboxHelpers | string {
  const found: Partial<Record<"unshare" | "nsenter" | "setpriv" | "env", string>> = {};
  for (const name of ["unshare", "nsenter", "setpriv", "env"] as const) {
    const path = Bun.which(name, { PATH: searchPath });
    if (path === null) return `${name} (util-linux / coreutils) is not installed`;
    found[name] = path;
  }
  const helpers = found as Record<"unshare" | "nsenter" | "setpriv" | "env", string>;
  return { ...helpers, shell: "/bin/sh", mapUser: knowsMapUser(helpers.unshare) };
}

const mapUserSupport = new Map<string, boolean>();

/** Whether `unshare --help` lists --map-user (asked once per binary). */
function knowsMapUser(unshare: string): boolean {
  let known = mapUserSupport.get(unshare);
  if (known === undefined) {
    const help = Bun.spawnSync([unshare, "--help"], { env: { PATH: HELPER_PATH }, stdout: "pipe", stderr: "ignore" });
    known = help.stdout.toString().includes("--map-user");
    mapUserSupport.set(unshare, known);
  }
  return known;
}

export interface PidNamespaceSandboxOptions extends SandboxProfile {
  /** Where to look for unshare, nsenter, setpriv and env (default: the usual system directories). */
  helperPath?: string;
}

export class PidNamespaceSandbox {
  private holder: Promise<Holder | string> | undefined;

  constructor(private readonly options: PidNamespaceSandboxOptions = {}) {}

  /** Whether commands can run isolated here, starting the holder if needed; a reason when they cannot. */
  async probe(): Promise<{ isolated: true; description: string } | { isolated: false; reason: string }> {
    const holder = await this.ensure();
    return typeof holder === "string"
      ? { isolated: false, reason: holder }
      : {
          isolated: true,
          description: describeProfile({ helpers: holder.helpers, root: holder.root, profile: this.options }),
        };
  }

  /**
   * The argv and environment that run `argv` inside the namespace in `cwd` with exactly `env`; spawn it as
   * its own process group like any command. `{isolated: false, reason}` when no namespace can be had.
   */
  async enter(options: {
    argv: string[];
    cwd: string;
    env: Record<string, string>;
    /**
     * Hand `env` over as the spawned process's environment (protected like any process's) rather than on the
     * command line of the entry (readable by every user in /proc/<pid>/cmdline): for secrets such as an MCP
     * server's tokens. Default false (bash: only values the model wrote).
     */
    passEnvironment?: boolean;
  }): Promise<SandboxEntry> {
    const holder = await this.ensure();
    if (typeof holder === "string") return { isolated: false, reason: holder };
    const { helpers, root, proc } = holder;
    return {
      isolated: true,
      description: describeProfile({ helpers, root, profile: this.options }),
      argv: enterArgv({ helpers, root, pid: proc.pid, profile: this.options, ...options }),
      env: options.passEnvironment === true ? options.env : { PATH: HELPER_PATH },
    };
  }

  /**
   * Whether a process can be started in a sandbox of this profile here (a holder is started, set up, and stopped
   * again), and the argv prefix that starts one in a sandbox of its own (sandbox-launcher.ts); a reason when it
   * cannot. `argvFor` builds the prefix for the same machine with other paths kept (an agent process's own).
   * `hides`: the hidden directory is really hidden (not so without root on an unshare older than 2.38).
   */
  async launcher(): Promise<SandboxLauncher | { isolated: false; reason: string }> {
    const holder = await this.ensure();
    this.stop();
    if (typeof holder === "string") return { isolated: false, reason: holder };
    const { helpers, root } = holder;
    const profile = { ...this.options, capabilities: "none" as const };
    return {
      isolated: true,
      argv: launcherArgv({ helpers, root, profile }),
      argvFor: (paths) => launcherArgv({ helpers, root, profile: { ...profile, ...paths } }),
      description: describeProfile({ helpers, root, profile }),
      hides: !legacy({ helpers, root }),
    };
  }

  /** Stops the namespace and everything in it (tests; an agent process needs not: it ends with the agent). */
  stop(): void {
    const current = this.holder;
    this.holder = undefined;
    void current?.then((holder) => {
      if (typeof holder !== "string") holder.proc.kill("SIGKILL");
    });
  }

  private ensure(): Promise<Holder | string> {
    const current = this.holder;
    if (current !== undefined) {
      return current.then((holder) => {
        if (typeof holder === "string" || (holder.proc.exitCode === null && initAlive(holder))) return holder;
        // pid 1 was stopped: start a new namespace. The holder may not have exited yet (or we may not have
        // heard of it), but nothing can enter a namespace whose pid 1 is gone, so do not wait for it.
        if (this.holder === current) this.holder = undefined;
        holder.proc.kill("SIGKILL");
        return this.ensure();
      });
    }
    const started = start(this.options);
    this.holder = started;
    return started;
  }
}

async function start(options: PidNamespaceSandboxOptions): Promise<Holder | string> {
  if (process.platform !== "linux") return `PID namespaces need Linux (this is ${process.platform})`;
  const helpers = findHelpers(options.helperPath ?? HELPER_PATH);
  if (typeof helpers === "string") return helpers;
  const root = process.getuid?.() === 0;
  let proc: Holder["proc"];
  try {
    proc = Bun.spawn(holderArgv({ helpers, root, profile: options }), {
      cwd: "/",
      env: { PATH: HELPER_PATH, ...setupEnv({ root, profile: options }) },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (error) {
    return `cannot start unshare: ${error instanceof Error ? error.message : String(error)}`;
  }
  proc.unref();
  const ready = await readyLine(proc);
  if (ready !== true) {
    proc.kill("SIGKILL");
    return ready;
  }
  if (!namespaceDiffers(proc.pid)) {
    proc.kill("SIGKILL");
    return "unshare started but its PID namespace is the same as ours";
  }
  return { proc, helpers, root, init: onlyChild(proc.pid) };
}

/** PF_EXITING in /proc/<pid>/stat's flags: the task is on its way out (a dying pid 1 lets no one in). */
const PF_EXITING = 0x4;

/**
 * Whether the namespace's pid 1 still lives and is not exiting, read from /proc rather than from the holder's
 * exit status: the holder exits only once every process in the namespace is gone and it has reaped pid 1,
 * and its exit reaches us later still, while an `nsenter` in between fails. True where /proc cannot say.
 */
function initAlive(holder: Holder): boolean {
  if (holder.init === undefined) return true;
  let stat: ProcStat | undefined;
  try {
    stat = parseProcStat(readFileSync(`/proc/${holder.init}/stat`, "utf8"));
  } catch {
    return false;
  }
  return stat !== undefined && stat.ppid === holder.proc.pid && !procStatEnded(stat) && (stat.flags & PF_EXITING) === 0;
}

/** True once pid 1 says ready; else why it did not (unshare's own error message when it failed). */
async function readyLine(proc: Holder["proc"]): Promise<true | string> {
  const reader = proc.stdout.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the namespace did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
  });
  const line = (async () => {
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      if (text.includes("ready\n")) return true as const;
    }
    const stderr = (await new Response(proc.stderr).text()).trim().split("\n").filter(Boolean).slice(-1)[0];
    return `unshare failed${stderr ? `: ${stderr}` : ` (exit code ${await proc.exited})`}`;
  })();
  try {
    return await Promise.race([line, timeout]);
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

function namespaceDiffers(pid: number): boolean {
  try {
    return readlinkSync("/proc/self/ns/pid") !== readlinkSync(`/proc/${pid}/ns/pid_for_children`);
  } catch {
    return false;
  }
}
