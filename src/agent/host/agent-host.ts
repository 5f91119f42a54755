/**
 * An agent host: one Bun process that holds many instances of one agent (the Agent's `spec.process.isolation:
 * agent`). The orchestrator opens an instance with an `open` message addressed to it, carrying the instance's own
 * agent-entry argv; from then on every message to that address goes to the instance, and the instance's messages go
 * out as a child's would. Each instance is the same IPC state machine a process of its own runs (agent-child.ts)
 * over a channel of its own, so its queue, turns, commits and shutdown are unchanged; instances run their turns
 * concurrently on one event loop. An instance that exits (idle, drained, fatal) says `exited` and is forgotten; a
 * `kill` drops it at once (its turn aborted, nothing persisted, as a killed process). The bundle is loaded once per
 * host. A stop signal stops every instance gracefully, then the host exits; a lost channel ends them all at once.
 */
import type { Bundle } from "../../config/types.ts";
import { parseAgentChildArgv } from "../../protocol/child-entry.ts";
import { envelope, isParentMessage, ORCHESTRATOR, type ChildMessage } from "../../protocol/ipc-messages.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import { runAgentChild, type ChildChannel, type RunAgentChildOptions } from "../child/agent-child.ts";

/** The child's options but the instance's own: each instance is opened by an `open` message. */
export type RunAgentHostOptions = Omit<RunAgentChildOptions, "args" | "model">;

/** One instance held by the host, as its channel sees it. */
interface Lane {
  readonly address: string;
  open: boolean;
  killed: boolean;
  readonly messageListeners: ((message: unknown) => void)[];
  readonly disconnectListeners: (() => void)[];
  stop: ((signal: string) => void) | undefined;
}

class AgentHost {
  private readonly lanes = new Map<string, Lane>();
  private readonly bundles = new Map<string, Promise<Bundle>>();
  private stopping: string | undefined;

  constructor(private readonly options: RunAgentHostOptions) {}

  receive(raw: unknown): void {
    if (!isParentMessage(raw))
      return this.options.logger.warn({ raw }, "ignored a message that is not a parent envelope");
    if (raw.type === "open") return this.open(raw.to, raw.payload.argv);
    const lane = this.lanes.get(raw.to);
    if (lane === undefined)
      return this.options.logger.debug(
        { to: raw.to, type: raw.type },
        "message for an instance this host does not hold",
      );
    if (raw.type === "kill") return this.kill(lane, raw.payload.reason);
    for (const listener of lane.messageListeners) listener(raw);
  }

  /** A stop signal: every instance finishes gracefully, then the host exits. */
  stop(signal: string): void {
    if (this.stopping !== undefined) return;
    this.stopping = signal;
    if (this.lanes.size === 0) return this.options.exit(0);
    for (const lane of [...this.lanes.values()]) lane.stop?.(signal);
  }

  /** The orchestrator is gone: every instance stops at once. */
  disconnected(): void {
    for (const lane of [...this.lanes.values()]) for (const listener of lane.disconnectListeners) listener();
    this.options.exit(0);
  }

  private open(address: string, argv: string[]): void {
    const { logger } = this.options;
    const stale = this.lanes.get(address);
    if (stale !== undefined) {
      logger.error({ address }, "asked to open an instance this host still holds; dropping the old one");
      this.kill(stale, "opened again");
    }
    const lane: Lane = {
      address,
      open: true,
      killed: false,
      messageListeners: [],
      disconnectListeners: [],
      stop: undefined,
    };
    this.lanes.set(address, lane);
    let args: ReturnType<typeof parseAgentChildArgv>;
    try {
      args = parseAgentChildArgv(argv);
    } catch (error) {
      this.send(
        lane,
        envelope("fatal", address, ORCHESTRATOR, { code: "E_AGENT_START_FAILED", message: describe(error).message }),
      );
      return this.closed(lane, 1);
    }
    const channel: ChildChannel = {
      send: (message) => this.send(lane, message),
      onMessage: (listener) => lane.messageListeners.push(listener),
      onDisconnect: (listener) => lane.disconnectListeners.push(listener),
    };
    runAgentChild({
      args,
      channel,
      logger: logger.child({ instanceKey: args.instanceKey }),
      loadBundle: (dir) => this.bundle(dir),
      exit: (code) => this.closed(lane, code),
      onStopSignal: (listener) => {
        lane.stop = listener;
        if (this.stopping !== undefined) listener(this.stopping);
      },
      ...(this.options.env === undefined ? {} : { env: this.options.env }),
    }).catch((error: unknown) => {
      logger.error({ address, err: error }, "instance failed");
      this.closed(lane, 1);
    });
  }

  /** Drops the instance now, as a killed process: its turn is aborted and nothing more of it is sent. */
  private kill(lane: Lane, reason: string): void {
    this.options.logger.warn({ address: lane.address, reason }, "instance killed");
    lane.killed = true;
    for (const listener of lane.disconnectListeners) listener();
    this.closed(lane, null);
  }

  private closed(lane: Lane, code: number | null): void {
    if (!lane.open) return;
    const exit = lane.killed ? { code: null, signal: "SIGKILL" } : { code: code ?? 0, signal: null };
    this.send(lane, envelope("exited", lane.address, ORCHESTRATOR, exit));
    lane.open = false;
    if (this.lanes.get(lane.address) === lane) this.lanes.delete(lane.address);
    if (this.stopping !== undefined && this.lanes.size === 0) this.options.exit(0);
  }

  /** A closed instance's late messages (a turn still unwinding) go nowhere: its address may be opened again. */
  private send(lane: Lane, message: ChildMessage): void {
    if (!lane.open) return;
    try {
      this.options.channel.send(message);
    } catch (error) {
      this.options.logger.warn({ err: error, type: message.type }, "could not send an IPC message");
    }
  }

  /** One load per bundle directory (the snapshot), shared by the instances; a failed load is tried again next time. */
  private bundle(dir: string): Promise<Bundle> {
    const known = this.bundles.get(dir);
    if (known !== undefined) return known;
    const loading = this.options.loadBundle(dir);
    this.bundles.set(dir, loading);
    loading.catch(() => this.bundles.delete(dir));
    return loading;
  }
}

export function runAgentHost(options: RunAgentHostOptions): void {
  const host = new AgentHost(options);
  options.onStopSignal?.((signal) => host.stop(signal));
  options.channel.onDisconnect(() => host.disconnected());
  options.channel.onMessage((raw) => host.receive(raw));
  options.logger.info("agent host ready");
}
