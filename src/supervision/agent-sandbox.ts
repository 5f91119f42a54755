/**
 * The sandbox an agent process runs in (docs/threat-model.md): the tool and extension modules it imports run in it
 * as the daemon's user, so it gets a PID namespace of its own (no other process in sight, the orchestrator's
 * /proc/<pid>/environ included), a mount namespace in which the state root is an empty read-only tmpfs but for
 * what the process needs (its instances' directory, writable; the bundle snapshot and bundled entry it loads at
 * start, read-only), and, as root, a user namespace of its own (so nothing in it can unmount what hides the state
 * root). It keeps the machine's network: it calls the model provider. Every process it starts inherits all of it.
 *
 * The machine is asked once, when the daemon starts (`probeAgentSandbox`): a real process is started in the
 * sandbox. Per spawn, `launcher` builds the argv prefix from the request's paths, by the Agent's
 * `spec.process.sandbox`: `auto` (default) runs unsandboxed where the machine refuses, with one warning; `required`
 * refuses to start the process (E_AGENT_SANDBOX_UNAVAILABLE); `none` never sandboxes it.
 */
import { mkdirSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import type { AgentSandboxSetting } from "../config/agent-process.ts";
import { SystemError } from "../shared/errors.ts";
import type { Logger } from "../shared/logger.ts";
import { PidNamespaceSandbox, type SandboxLauncher } from "../tools/pid-namespace-sandbox.ts";

export type { AgentSandboxSetting };

/** What an agent spawn request asks of the sandbox (SpawnRequest.sandbox). */
export interface AgentSandboxRequest {
  setting: AgentSandboxSetting;
  /** Directories under the state root that stay in view, writable (made when missing). */
  keep: string[];
  /** Files or directories under the state root that stay in view read-only, when they exist. */
  readOnly: string[];
}

export type AgentSandboxState = { isolated: true; description: string } | { isolated: false; reason: string };

export interface AgentSandbox {
  readonly state: AgentSandboxState;
  /** The argv prefix for this request; undefined to run it as is. Throws E_AGENT_SANDBOX_UNAVAILABLE when required. */
  launcher(request: AgentSandboxRequest): string[] | undefined;
}

const PROBE_TIMEOUT_MS = 10_000;

/** Starts one process in the sandbox the agent processes would get, and says whether it ran and what it withholds. */
export async function probeAgentSandbox(options: {
  stateRoot: string;
  logger: Logger;
  /** Where to look for unshare and its kin (tests); default the system's. */
  helperPath?: string;
}): Promise<AgentSandbox> {
  const { stateRoot, logger } = options;
  try {
    mkdirSync(stateRoot, { recursive: true });
  } catch (error) {
    const reason = `cannot make the state root: ${error instanceof Error ? error.message : String(error)}`;
    return unavailable(reason, logger);
  }
  const sandbox = new PidNamespaceSandbox({
    network: "host",
    nested: true,
    hide: stateRoot,
    ...(options.helperPath === undefined ? {} : { helperPath: options.helperPath }),
  });
  const found = await sandbox.launcher();
  const launcher: SandboxLauncher | undefined = found.isolated && found.hides ? found : undefined;
  const reason = !found.isolated
    ? found.reason
    : !found.hides
      ? `the state root cannot be hidden (${found.description})`
      : await runsInside(found.argvFor({}));
  if (launcher === undefined || reason !== undefined) return unavailable(reason ?? "unknown", logger);
  return {
    state: { isolated: true, description: launcher.description },
    launcher(request) {
      if (request.setting === "none") return undefined;
      const keep = request.keep.filter((path) => keepable(stateRoot, path, true));
      const readOnly = request.readOnly.filter((path) => keepable(stateRoot, path, false));
      return launcher.argvFor({ keep, readOnly });
    },
  };
}

/** The sandbox of a machine that refuses it: `auto` runs as is (one warning), `required` refuses. */
function unavailable(why: string, logger: Logger): AgentSandbox {
  let warned = false;
  return {
    state: { isolated: false, reason: why },
    launcher(request) {
      if (request.setting === "none") return undefined;
      if (request.setting === "required") {
        throw new SystemError(
          "E_AGENT_SANDBOX_UNAVAILABLE",
          `this Agent's process requires its sandbox, which this machine does not allow: ${why}`,
          { suggestion: "run goondan doctor; allow user namespaces, or set the Agent's spec.process.sandbox to auto" },
        );
      }
      if (!warned) {
        warned = true;
        logger.warn(
          { reason: why },
          "agent processes run WITHOUT their sandbox: a tool or extension module (and every process it starts) can read the state root (goondan.db, the API token file, every instance's files) and the environment of this user's unprotected processes; `goondan doctor` shows why",
        );
      }
      return undefined;
    },
  };
}

/** Undefined when a process started by `prefix` ran and exited 0; else why not. */
async function runsInside(prefix: string[]): Promise<string | undefined> {
  try {
    const proc = Bun.spawn([...prefix, "/bin/sh", "-c", "exit 0"], {
      cwd: "/",
      env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    clearTimeout(timer);
    if (code === 0) return undefined;
    const last = stderr.trim().split("\n").filter(Boolean).slice(-1)[0];
    return `the sandbox did not start${last ? `: ${last}` : ` (exit code ${code})`}`;
  } catch (error) {
    return `cannot start unshare: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Whether `path` can stay in view: it exists (a writable one is made) under the state root, and no symlink lies on
 * its way there (a link planted earlier in a kept directory must not bring another part of the state root into view).
 */
function keepable(stateRoot: string, path: string, make: boolean): boolean {
  const rel = relative(stateRoot, path);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
  try {
    if (make) mkdirSync(path, { recursive: true });
    return realpathSync(path) === join(realpathSync(stateRoot), rel);
  } catch {
    return false;
  }
}
