/**
 * The agent child's IPC loop, a small state machine: `starting` (waiting for its durable state, `hydrate`, and
 * building the instance) → `ready` (answers `ready`, or `fatal` and exit 1) → `stopping` (after `shutdown`, a stop
 * signal, or the lost channel). While ready it serves `event` messages FIFO one at a time (p-queue, concurrency 1),
 * each with exactly one `turn_result` and a heartbeat while its turn runs (serve-event.ts), and feeds
 * `runtime_result` / `delegate_result` to ctx.runtime. A shutdown lets the current turn finish (aborting it when the
 * grace period ends: an aborted turn is not committed and stays in the orchestrator's inbox), persists, answers
 * `shutdown_ack` and exits 0. Results that arrive while no turn runs (an async reply, a pending tool's completion)
 * make it ask for a turn with `results_waiting`, once until the next event, and again after a turn or a restart
 * while any are left. When the IPC channel is lost (the parent died) it exits at once: no orphans. `turn_started`
 * and runtime events, which nothing waits on, ride with the next other message (or go within 25 ms) rather than
 * wake the orchestrator on their own. Everything process-specific comes in through options.
 */
import PQueue from "p-queue";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { Bundle } from "../../config/types.ts";
import {
  envelope,
  isParentMessage,
  ORCHESTRATOR,
  type ChildMessage,
  type ChildToParent,
  type ParentToChild,
} from "../../protocol/ipc-messages.ts";
import { instanceAddress } from "../../protocol/agent-event.ts";
import type { AgentChildArgs } from "../../protocol/child-entry.ts";
import type { InstanceState } from "../../protocol/instance-state.ts";
import { describe, isGoondanError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { AgentInstance } from "../instance/agent-instance.ts";
import { createAgentInstance } from "../instance/create-agent-instance.ts";
import { IpcInstanceLink } from "./ipc-instance-link.ts";
import { RuntimeClient } from "./runtime-client.ts";
import { modelGateClient } from "./model-gate-client.ts";
import { serveEvent } from "./serve-event.ts";
import { TurnDeltaSender } from "./turn-delta-sender.ts";

export interface ChildChannel {
  send(message: ChildMessage): void;
  onMessage(listener: (message: unknown) => void): void;
  onDisconnect(listener: () => void): void;
}

export interface RunAgentChildOptions {
  args: AgentChildArgs;
  channel: ChildChannel;
  logger: Logger;
  loadBundle: (dir: string) => Promise<Bundle>;
  exit: (code: number) => void;
  /** Registers the listener for a stop request from outside (SIGTERM): a graceful shutdown, like `shutdown`. */
  onStopSignal?: (listener: (signal: string) => void) => void;
  env?: Record<string, string | undefined>;
  model?: LanguageModelV3;
}

type Phase =
  | { type: "starting" }
  | { type: "ready"; instance: AgentInstance; gracePeriodMs: number; requestTimeoutMs: number }
  /** Stopping: the instance stays open until the running turn ended, so a reply arriving meanwhile is still kept. */
  | { type: "stopping"; instance?: AgentInstance };

/** Used for a shutdown signal that arrives before the Swarm's policy is known. */
const DEFAULT_GRACE_PERIOD_MS = 30_000;

class AgentChild {
  private phase: Phase = { type: "starting" };
  private readonly queue = new PQueue({ concurrency: 1 });
  /** The running turn's abort, while one runs. */
  private turn: AbortController | undefined;
  /** `results_waiting` was sent and no event came since. */
  private askedForTurn = false;
  /** While stopping: when the running turn is aborted if it has not ended by then. */
  private abortTimer: ReturnType<typeof setTimeout> | undefined;
  private abortAt = Number.POSITIVE_INFINITY;
  /** The running turn's `turn_started`, not sent yet: it goes first with the next message (see `send`). */
  private turnStarted: ChildMessage | undefined;
  private readonly address: string;
  readonly runtime: RuntimeClient;
  readonly link: IpcInstanceLink;
  /** The running turn's streamed text, on its way to the orchestrator. */
  readonly text: TurnDeltaSender;
  /** Resolves with the instance's durable state, the orchestrator's first message. */
  readonly hydrated: Promise<InstanceState>;
  private hydrate: (state: InstanceState) => void = () => {};

  constructor(private readonly options: RunAgentChildOptions) {
    this.address = instanceAddress(options.args.agent, options.args.instanceKey);
    this.link = new IpcInstanceLink(this.address, (message) => this.send(message));
    this.text = new TurnDeltaSender(this.address, (message) => this.send(message));
    this.hydrated = new Promise((resolve) => (this.hydrate = resolve));
    this.runtime = new RuntimeClient({
      address: this.address,
      send: (message) => this.send(message),
      defaultTimeoutMs: () => (this.phase.type === "ready" ? this.phase.requestTimeoutMs : undefined),
      onUnclaimedResult: (result) => {
        const instance = this.phase.type === "starting" ? undefined : this.phase.instance;
        if (instance === undefined)
          return options.logger.warn(
            { correlationId: result.correlationId },
            "reply arrived while the instance was not open; dropped",
          );
        // A blocking call not waiting (yet): its turn was redelivered and the call, run again, gets it from the store.
        if (result.async !== true)
          return options.logger.debug(
            { correlationId: result.correlationId },
            "reply for a call not waiting; its reattached call gets it",
          );
        instance.addPendingResult(result);
      },
    });
  }

  /** Builds the instance and says `ready`, or `fatal` and exit 1. */
  async start(
    ready: Promise<{ instance: AgentInstance; gracePeriodMs: number; requestTimeoutMs: number }>,
  ): Promise<void> {
    const { logger, args } = this.options;
    try {
      const built = await ready;
      if (this.phase.type === "stopping") return;
      this.phase = { type: "ready", ...built };
    } catch (error) {
      const code = isGoondanError(error) ? error.code : "E_AGENT_START_FAILED";
      logger.error({ code, err: error }, "agent failed to start");
      this.send(envelope("fatal", this.address, ORCHESTRATOR, { code, message: describe(error).message }));
      this.options.exit(1);
      return;
    }
    this.send(
      envelope("ready", this.address, ORCHESTRATOR, {
        pid: process.pid,
        agent: args.agent,
        instanceKey: args.instanceKey,
      }),
    );
    logger.debug("agent ready"); // per conversation: the process says when it is up
    this.phase.instance.onPendingResult(() => this.askForTurnIfResultsWait());
    this.askForTurnIfResultsWait(); // results stored before a crash or restart
  }

  /** Events wait in the queue until the instance is built; the rest is handled at once. */
  receive(raw: unknown, ready: Promise<unknown>): void {
    if (!isParentMessage(raw))
      return this.options.logger.warn({ raw }, "ignored a message that is not a parent envelope");
    switch (raw.type) {
      case "event": {
        if (this.phase.type === "stopping") return;
        const payload = raw.payload;
        void this.queue.add(async () => {
          await ready.catch(() => undefined);
          await this.runEvent(payload);
        });
        return;
      }
      case "hydrate":
        return this.hydrate(raw.payload);
      case "committed":
        return this.link.handleCommitted(raw.payload);
      case "older_messages_result":
        return this.link.handleOlderMessages(raw.payload);
      case "runtime_result":
        return this.runtime.handleRuntimeResult(raw.payload);
      case "delegate_result":
        return this.runtime.handleDelegateResult(raw.payload);
      case "shutdown":
        void this.shutdown(raw.payload.reason, raw.payload.gracePeriodMs);
        return;
      default:
        return;
    }
  }

  /**
   * Graceful: the turn finishes (aborted once the grace period ends), queued events stay in the orchestrator's inbox.
   * A second shutdown while stopping can only shorten the grace (the orchestrator knows the turn cannot finish).
   */
  async shutdown(reason: string, gracePeriodMs?: number): Promise<void> {
    if (this.phase.type === "stopping") {
      if (gracePeriodMs !== undefined) this.abortTurnWithin(gracePeriodMs);
      return;
    }
    const instance = this.phase.type === "ready" ? this.phase.instance : undefined;
    const grace = gracePeriodMs ?? (this.phase.type === "ready" ? this.phase.gracePeriodMs : DEFAULT_GRACE_PERIOD_MS);
    this.phase = { type: "stopping", ...(instance === undefined ? {} : { instance }) };
    this.queue.clear();
    this.abortTurnWithin(grace);
    await this.queue.onIdle();
    clearTimeout(this.abortTimer);
    this.phase = { type: "stopping" };
    instance?.close();
    this.send(envelope("shutdown_ack", this.address, ORCHESTRATOR, { reason }));
    this.options.logger.debug({ reason }, "agent stopped");
    this.options.exit(0);
  }

  private abortTurnWithin(ms: number): void {
    const at = Date.now() + Math.max(0, ms);
    if (this.abortTimer !== undefined && this.abortAt <= at) return;
    clearTimeout(this.abortTimer);
    this.abortAt = at;
    this.abortTimer = setTimeout(() => this.turn?.abort(new Error("shutdown grace period over")), Math.max(0, ms));
  }

  /** The orchestrator is gone: stop at once, failing whatever waits on it. */
  disconnected(): void {
    this.options.logger.warn("IPC channel lost (the orchestrator is gone); exiting");
    this.phase = { type: "stopping" };
    this.turn?.abort(new Error("parent gone"));
    this.runtime.failAll("the orchestrator is gone");
    this.link.failAll("the orchestrator is gone");
    this.options.exit(0);
  }

  private async runEvent(payload: ParentToChild["event"]): Promise<void> {
    if (this.phase.type !== "ready") return;
    const abort = new AbortController();
    this.turn = abort;
    this.askedForTurn = false;
    try {
      await serveEvent({
        instance: this.phase.instance,
        payload,
        signal: abort.signal,
        address: this.address,
        text: this.text,
        send: (message) => this.send(message),
        holdTurnStarted: (message) => (this.turnStarted = message),
        logger: this.options.logger,
        exit: this.options.exit,
      });
    } finally {
      this.turn = undefined;
      this.askForTurnIfResultsWait();
    }
  }

  /** Asks the orchestrator for a turn when idle with results the model has not seen (once until the next event). */
  private askForTurnIfResultsWait(): void {
    if (this.phase.type !== "ready" || this.turn !== undefined || this.askedForTurn || this.queue.size > 0) return;
    const count = this.phase.instance.pendingResultCount;
    if (count === 0) return;
    this.askedForTurn = true;
    const waiting: ChildToParent["results_waiting"] = { count };
    this.send(envelope("results_waiting", this.address, ORCHESTRATOR, waiting));
  }

  /**
   * Every message takes the held `turn_started` ahead of it, and every message but runtime events the runtime events
   * held so far (ipc-instance-link.ts, whose timer sends them within 25 ms), riding in its `ahead` (one write), so all
   * arrive in the order they were made.
   */
  private send(message: ChildMessage): void {
    const ahead: ChildMessage[] = this.turnStarted === undefined ? [] : [this.turnStarted];
    this.turnStarted = undefined;
    const events = message.type === "runtime_events" ? undefined : this.link.takeEvents();
    if (events !== undefined) ahead.push(events);
    this.write(ahead.length === 0 ? message : { ...message, ahead });
  }

  private write(message: ChildMessage): void {
    try {
      this.options.channel.send(message);
    } catch (error) {
      this.options.logger.warn({ err: error, type: message.type }, "could not send an IPC message");
    }
  }
}

export async function runAgentChild(options: RunAgentChildOptions): Promise<void> {
  const { args, logger } = options;
  const child = new AgentChild(options);
  options.onStopSignal?.((signal) => void child.shutdown(signal));
  options.channel.onDisconnect(() => child.disconnected());
  const ready = (async () => {
    const [bundle, state] = await Promise.all([options.loadBundle(args.bundle), child.hydrated]);
    const created = await createAgentInstance({
      bundle,
      swarm: args.swarm,
      agent: args.agent,
      instanceKey: args.instanceKey,
      stateRoot: args.stateRoot,
      runtime: (context) => child.runtime.scoped(context),
      state,
      link: child.link,
      stream: child.text,
      modelGate: modelGateClient({ runtime: child.runtime, logger }),
      logger,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.model === undefined ? {} : { model: options.model }),
    });
    return { instance: created.instance, ...created.policy };
  })();
  options.channel.onMessage((raw) => child.receive(raw, ready));
  await child.start(ready);
}
