/**
 * The stdio transport of the `mcp` extension: runs one server as a child of the agent process, in a process
 * group of its own, and speaks newline-delimited JSON-RPC over its stdin/stdout (with the SDK's ReadBuffer and
 * serializeMessage). A few lines of /bin/sh, the guard, share that group and block reading an extra pipe whose
 * only writer is this process: however the agent process ends, `kill -9` included, the read returns and the
 * guard sends the group SIGTERM, then SIGKILL two seconds later. So no server outlives the agent that uses it,
 * without polling and without anything for the orchestrator to do. The server's stderr is logged at debug
 * level and kept as a short tail for error messages, with the configured secrets redacted in both.
 *
 * With a `sandbox` (the default transport always gives one) the server, guard included, runs in a sandbox of its
 * own (src/tools/pid-namespace-sandbox.ts): its own PID namespace, no capabilities, no new privileges, a network
 * namespace of its own unless `network: host`, and the state root hidden; its environment is exactly `env`. Where
 * the machine gives no namespace, `isolation: auto` runs it as is (one warning per process), `required` refuses
 * to start it (E_MCP_ISOLATION_UNAVAILABLE).
 */
import { closeSync } from "node:fs";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../../../shared/logger.ts";
import { redactSecrets } from "../../../shared/redact-secrets.ts";
import { PidNamespaceSandbox } from "../../../tools/pid-namespace-sandbox.ts";
import { sandboxCommand } from "../../../tools/sandbox-pool.ts";
import type { McpSandboxSpec } from "./server-spec.ts";

/** `sh -c GUARD mcp-guard <command> <args…>`: the guard runs in the background, the server replaces the shell. */
const GUARD = [
  "( trap '' TERM; read _ <&3; kill -TERM 0; sleep 2; kill -KILL 0 ) </dev/null >/dev/null 2>&1 &",
  'exec "$@" 3<&-',
].join("\n");
const STOP_GRACE_MS = 2_500;
const STDERR_TAIL_CHARS = 2_000;

export interface GuardedStdioOptions {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  /** Values replaced by `[redacted]` in logged and reported stderr. */
  secrets: readonly string[];
  logger: Logger;
  /** Run the server in a sandbox of its own (absent: as is, for tests of the transport alone). */
  sandbox?: McpSandboxSpec;
  /** Where the sandbox looks for unshare and its kin (tests of a machine without them); default the system's. */
  sandboxHelperPath?: string;
}

let warnedUnisolated = false;

/** Forgets that the unisolated warning was given (tests). */
export function resetUnisolatedWarning(): void {
  warnedUnisolated = false;
}

type ServerProcess = Bun.Subprocess<"pipe", "pipe", "pipe">;

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private process: ServerProcess | undefined;
  private guardFd: number | undefined;
  private readonly readBuffer = new ReadBuffer();
  private stderrTail = "";
  private closed = false;
  private exitText: string | undefined;
  private sandbox: PidNamespaceSandbox | undefined;

  constructor(private readonly options: GuardedStdioOptions) {}

  /** The server's pid (its process group id too), once started. */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** How the server ended and the end of its stderr, once it has exited; undefined while it runs. */
  get exitDescription(): string | undefined {
    if (this.exitText === undefined) return undefined;
    const tail = this.stderrTail.trim().split("\n").slice(-3).join(" | ");
    return tail === "" ? this.exitText : `${this.exitText}; stderr: ${tail}`;
  }

  async start(): Promise<void> {
    if (this.process !== undefined) throw new Error("GuardedStdioTransport already started");
    const { command, args, env, cwd } = this.options;
    const launch = await this.launch({ argv: ["/bin/sh", "-c", GUARD, "mcp-guard", command, ...args], cwd, env });
    // Bun.spawn throws at once for a cwd that does not exist; a missing command makes the shell exit 127.
    const spawned = Bun.spawn(launch.argv, {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      detached: true,
    }) as unknown as ServerProcess;
    this.process = spawned;
    const guardFd = (spawned.stdio as unknown[])[3];
    if (typeof guardFd === "number") this.guardFd = guardFd;
    void this.readStdout(spawned);
    void this.readStderr(spawned);
    void spawned.exited.then(() => this.onExited(spawned));
  }

  /** The argv to spawn: wrapped into a new sandbox when one is asked for and can be had. */
  private async launch(command: { argv: string[]; cwd: string; env: Record<string, string> }) {
    const spec = this.options.sandbox;
    if (spec === undefined || spec.isolation === "none") return command;
    this.sandbox = new PidNamespaceSandbox({
      network: spec.network,
      capabilities: "none",
      ...(spec.hide === undefined ? {} : { hide: spec.hide }),
      ...(this.options.sandboxHelperPath === undefined ? {} : { helperPath: this.options.sandboxHelperPath }),
    });
    const decision = await sandboxCommand({
      sandbox: this.sandbox,
      setting: spec.isolation,
      command,
      passEnvironment: true,
    });
    if (decision.kind === "refused") {
      this.stopSandbox();
      throw Object.assign(
        new Error(
          `E_MCP_ISOLATION_UNAVAILABLE: this server requires its own sandbox, which this machine does not allow: ${decision.reason}; run goondan doctor, or set its isolation to auto`,
        ),
        { code: "E_MCP_ISOLATION_UNAVAILABLE" },
      );
    }
    if (decision.kind === "unisolated" && !warnedUnisolated) {
      warnedUnisolated = true;
      this.options.logger.warn(
        { reason: decision.reason },
        "MCP stdio servers run WITHOUT their sandbox: a server can read the environment of this user's unprotected processes, the state root (goondan.db) and reach the daemon's API on 127.0.0.1; `goondan doctor` shows why",
      );
    }
    return decision.command;
  }

  private stopSandbox(): void {
    this.sandbox?.stop();
    this.sandbox = undefined;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.process;
    if (child === undefined || this.closed) throw new Error("the MCP server is not running");
    child.stdin.write(serializeMessage(message));
    await child.stdin.flush();
  }

  /** Stops the server: SIGTERM to its group, SIGKILL after a grace period; resolves once it has exited. */
  async close(): Promise<void> {
    const child = this.process;
    if (child === undefined || this.closed) return;
    signalGroup(child.pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), STOP_GRACE_MS);
    await child.exited;
    clearTimeout(timer);
  }

  private onExited(child: ServerProcess): void {
    this.exitText = child.signalCode
      ? `the server process was ended by ${child.signalCode}`
      : `the server process exited with code ${child.exitCode}`;
    // The guard (and anything the server left in its group) goes too, its sandbox with it; then our end of the
    // guard pipe.
    signalGroup(child.pid, "SIGKILL");
    this.stopSandbox();
    if (this.guardFd !== undefined) {
      try {
        closeSync(this.guardFd);
      } catch {
        // already closed
      }
      this.guardFd = undefined;
    }
    if (this.closed) return;
    this.closed = true;
    this.readBuffer.clear();
    this.onclose?.();
  }

  private async readStdout(child: ServerProcess): Promise<void> {
    try {
      for await (const chunk of child.stdout) {
        this.readBuffer.append(Buffer.from(chunk));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.readBuffer.readMessage();
          } catch (error) {
            // A line that is not JSON-RPC (a server printing to stdout): reported, skipped.
            this.onerror?.(error instanceof Error ? error : new Error(String(error)));
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      }
    } catch (error) {
      if (!this.closed) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private async readStderr(child: ServerProcess): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    try {
      for await (const chunk of child.stderr) {
        const text = redactSecrets(partial + decoder.decode(chunk, { stream: true }), this.options.secrets);
        const lines = text.split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) {
          if (line.trim() === "") continue;
          this.options.logger.debug({ stderr: line.slice(0, 1000) }, "MCP server stderr");
          this.stderrTail = `${this.stderrTail}${line}\n`.slice(-STDERR_TAIL_CHARS);
        }
      }
    } catch {
      // the pipe broke with the process: nothing more to read
    }
    if (partial.trim() !== "") this.stderrTail = `${this.stderrTail}${partial}\n`.slice(-STDERR_TAIL_CHARS);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}
