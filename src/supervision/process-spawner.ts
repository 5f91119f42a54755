/**
 * The ProcessSpawner seam: how the supervisor starts one child and talks to it. The real spawner runs
 * `bun <entry script> <argv>` with `Bun.spawn` IPC (`serialization: "json"`); its stdout and stderr go
 * as-is to the orchestrator's log destination (children log pino JSON lines themselves), or line by line to a
 * sink that decides (child-output.ts). Tests use the fake spawner in test/helpers/fake-spawner.ts.
 */
import { dirname } from "node:path";
import type { AgentSandbox, AgentSandboxRequest } from "./agent-sandbox.ts";
import { onlyChild } from "../shared/only-child.ts";
import { childEnvironment } from "./child-environment.ts";
import { pumpLines, spawnStdio, type ChildOutput } from "./child-output.ts";
import { AGENT_ENTRY_SCRIPT } from "../protocol/child-entry.ts";
import { childMessagesIn, type ChildMessage, type ParentMessage } from "../protocol/ipc-messages.ts";

export interface ChildExit {
  /** Exit code, null when killed by a signal. */
  code: number | null;
  signal: string | null;
}

export interface ChildProcessHandle {
  readonly pid: number;
  /** Sends one message; false when the channel is already closed. */
  send(message: ParentMessage): boolean;
  onMessage(listener: (message: ChildMessage) => void): void;
  /** Called once when the process has exited. */
  onExit(listener: (exit: ChildExit) => void): void;
  kill(signal?: "SIGTERM" | "SIGKILL"): void;
}

export interface SpawnRequest {
  /** The child's address (`agent/instanceKey`, `connector:<connection>`), for logs and tests. */
  address: string;
  /** Arguments after the entry script (`agentChildArgv`, `connectorChildArgv`). */
  argv: string[];
  /** Extra environment on top of the orchestrator's own. */
  env?: Record<string, string>;
  /** The child's stdin. Default "ignore"; the built-in `cli` connector inherits the orchestrator's. */
  stdin?: "inherit" | "ignore";
  /** The child's stdout, overriding the spawner's `output` (the `cli` connector's replies go to fd 1). */
  stdout?: number;
  /** An argv prefix that starts the child in a sandbox (a connector's: src/tools/sandbox-launcher.ts); none by default. */
  launcher?: string[];
  /** An agent process's sandbox (agent-sandbox.ts), built by a spawner that was given one; ignored by others. */
  sandbox?: AgentSandboxRequest;
  /**
   * Run this child in a shared host process rather than a process of its own (shared-spawner.ts): hosts of one
   * `group` run `hostArgv` with this request's env, and hold up to `maxInstances` children each, in up to
   * `maxProcesses` hosts. `label` names the hosts' owner (the agent): a newer group of a label retires the older.
   */
  share?: SharedPlacement;
}

export interface SharedPlacement {
  group: string;
  label: string;
  hostArgv: string[];
  maxProcesses: number;
  /** How long a host left empty lives on, waiting for a new child (the Swarm's idleSeconds). */
  idleMs: number;
}

export interface ProcessSpawner {
  spawn(request: SpawnRequest): ChildProcessHandle;
  /** A spawner that shares processes: every host left empty exits now (the orchestrator stopped its children). */
  stopIdle?(): void;
}

export interface BunSpawnerOptions {
  /** Default: the agent entry script (`AGENT_ENTRY_SCRIPT`). */
  entryScript?: string;
  /** Default: the running Bun binary (`process.execPath`). */
  bunPath?: string;
  /** Where children's stdout/stderr go: a file descriptor, "ignore", or a line sink. Default 1 (stdout). */
  output?: ChildOutput;
  /**
   * Base environment, of which children get only the basics (PATH, HOME, locale, proxies, non-secret
   * GOONDAN_*: see child-environment.ts); a request's own `env` adds what that child needs. Default: `process.env`.
   */
  env?: Record<string, string | undefined>;
  /** Called for messages that are not protocol envelopes (a child bug); default drops them. */
  onInvalidMessage?: (message: unknown, pid: number) => void;
  /** Runs requests that carry `sandbox` in the agent sandbox (`goondan run`); default none. */
  sandbox?: AgentSandbox;
}

export function bunProcessSpawner(options: BunSpawnerOptions = {}): ProcessSpawner {
  const entryScript = options.entryScript ?? AGENT_ENTRY_SCRIPT;
  const bunPath = options.bunPath ?? process.execPath;
  const output = options.output ?? 1;
  return {
    spawn(request) {
      const messageListeners: ((message: ChildMessage) => void)[] = [];
      const exitListeners: ((exit: ChildExit) => void)[] = [];
      let exited: ChildExit | undefined;
      let connected = true;
      const env = { ...childEnvironment({ env: options.env ?? process.env }), ...request.env };
      // The bundled entry may lie under the state root (its cache): it stays in view, read-only.
      const launcher =
        request.launcher ??
        (request.sandbox === undefined || options.sandbox === undefined
          ? undefined
          : options.sandbox.launcher({
              ...request.sandbox,
              readOnly: [...request.sandbox.readOnly, dirname(entryScript)],
            }));
      // --no-install: a user module importing a package that does not resolve fails clearly instead of fetching it.
      const child = Bun.spawn([...(launcher ?? []), bunPath, "--no-install", entryScript, ...request.argv], {
        env,
        stdin: request.stdin ?? "ignore",
        stdout: request.stdout ?? spawnStdio(output),
        stderr: spawnStdio(output),
        serialization: "json",
        ipc(message) {
          const { messages, invalid } = childMessagesIn(message);
          for (const each of invalid) options.onInvalidMessage?.(each, child.pid);
          for (const each of messages) for (const listener of messageListeners) listener(each);
        },
        onDisconnect() {
          connected = false;
        },
        onExit(_subprocess, exitCode, signalCode) {
          connected = false;
          exited = { code: exitCode, signal: signalCode === null ? null : String(signalCode) };
          for (const listener of exitListeners) listener(exited);
        },
      });
      if (typeof output === "function") {
        if (child.stdout instanceof ReadableStream) void pumpLines(child.stdout, output);
        if (child.stderr instanceof ReadableStream) void pumpLines(child.stderr, output);
      }
      return {
        pid: child.pid,
        send(message) {
          if (!connected || exited) return false;
          try {
            child.send(message);
            return true;
          } catch {
            return false;
          }
        },
        onMessage(listener) {
          messageListeners.push(listener);
        },
        onExit(listener) {
          if (exited) listener(exited);
          else exitListeners.push(listener);
        },
        kill(signal = "SIGTERM") {
          if (exited) return;
          // A launcher (unshare) keeps SIGTERM from the process it started, its namespace's pid 1: send it there.
          const inner = launcher !== undefined && signal === "SIGTERM" ? onlyChild(child.pid) : undefined;
          if (inner === undefined) child.kill(signal);
          else process.kill(inner, signal);
        },
      };
    },
  };
}
