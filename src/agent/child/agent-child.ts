/**
 * The agent child's IPC loop: builds the instance, answers `ready` (or `fatal` and exit 1), serves `event`
 * messages FIFO one at a time (p-queue, concurrency 1) with exactly one `turn_result` each, feeds
 * `runtime_result` / `delegate_result` to ctx.runtime, and on `shutdown` lets the current turn finish (aborting
 * it when the grace period ends: an aborted turn is not committed and stays in the orchestrator's inbox),
 * persists, answers `shutdown_ack` and exits 0. A stop signal (SIGTERM, through `onStopSignal`) is the same
 * graceful shutdown, asked for from outside. While a turn runs it says `heartbeat` every
 * HEARTBEAT_INTERVAL_MS. Results that arrive while no turn runs (an async reply, a pending tool's completion)
 * make it ask for a turn with `results_waiting`, so the model sees them without waiting for someone else's
 * message; it asks again after a turn or a restart while any are left. When the IPC channel is lost (the
 * parent died) it exits at once: no orphans. Everything process-specific comes in through options.
 */
import PQueue from "p-queue";
import type { Bundle } from "../../config/types.ts";
import { envelope, HEARTBEAT_INTERVAL_MS, isParentMessage, ORCHESTRATOR, type ChildMessage, type ParentMessage } from "../../protocol/ipc-messages.ts";
import { instanceAddress } from "../../protocol/agent-event.ts";
import type { AgentChildArgs } from "../../protocol/child-entry.ts";
import { failedOutcome } from "../../protocol/turn-outcome.ts";
import { describe, isGoondanError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AgentInstance } from "../instance/agent-instance.ts";
import { createAgentInstance } from "../instance/create-agent-instance.ts";
import { RuntimeClient } from "./runtime-client.ts";
import { toolProgress } from "./tool-progress.ts";

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

export async function runAgentChild(options: RunAgentChildOptions): Promise<void> {
  const { args, channel, logger } = options;
  const address = instanceAddress(args.agent, args.instanceKey);
  const send = (message: ChildMessage): void => {
    try {
      channel.send(message);
    } catch (error) {
      logger.warn({ err: error, type: message.type }, "could not send an IPC message");
    }
  };
  const queue = new PQueue({ concurrency: 1 });
  let instance: AgentInstance | undefined;
  let currentAbort: AbortController | undefined;
  let shuttingDown = false;
  let gracePeriodMs = 30_000;
  let requestTimeoutMs: number | undefined; // the Swarm's policy, once the instance is built
  let busy = false;
  let askedForTurn = false;

  /** Asks the orchestrator for a turn when idle with results the model has not seen (once until the next event). */
  const askForTurnIfResultsWait = (): void => {
    if (instance === undefined || shuttingDown || busy || askedForTurn || queue.size > 0) return;
    const count = instance.pendingResultCount;
    if (count === 0) return;
    askedForTurn = true;
    send(envelope("results_waiting", address, ORCHESTRATOR, { count }));
  };

  const runtime = new RuntimeClient({
    address,
    send,
    defaultTimeoutMs: () => requestTimeoutMs,
    callContext: () => {
      const event = instance?.currentEvent;
      const toolSpanId = instance?.env.activeSpan?.toolSpanId;
      return { callChain: event?.callChain ?? [], ...(event === undefined ? {} : { traceId: event.traceId }), ...(toolSpanId === undefined ? {} : { parentSpanId: toolSpanId }) };
    },
    onUnclaimedResult: (result) => {
      if (instance === undefined) return logger.warn({ correlationId: result.correlationId }, "reply arrived before the instance was ready; dropped");
      instance.addPendingResult(result);
    },
  });

  const handleEvent = async (message: Extract<ParentMessage, { type: "event" }>): Promise<void> => {
    if (instance === undefined || shuttingDown) return;
    const { event, attempt, crashedBefore } = message.payload;
    const abort = new AbortController();
    currentAbort = abort;
    busy = true;
    askedForTurn = false;
    // Proof of a live event loop while the turn runs; a tool stuck in a synchronous loop silences it.
    let turnId: string | undefined;
    const heartbeat = setInterval(() => send(envelope("heartbeat", address, ORCHESTRATOR, turnId === undefined ? {} : { turnId })), HEARTBEAT_INTERVAL_MS);
    try {
      const onTurnStarted = (started: string) => {
        turnId = started;
        send(envelope("turn_started", address, ORCHESTRATOR, { eventId: event.id, turnId: started }));
      };
      const result = await instance.handleEvent({ event, attempt, signal: abort.signal, onTurnStarted, ...(crashedBefore === undefined ? {} : { crashedBefore }) });
      if (result !== undefined) send(envelope("turn_result", address, ORCHESTRATOR, result));
    } catch (error) {
      // Only a bug of ours or a failing disk gets here; still exactly one reply.
      logger.error({ err: error, eventId: event.id }, "turn could not be committed");
      const failure = { code: "AGENT_TURN_FAILED", message: describe(error).message };
      send(envelope("turn_result", address, ORCHESTRATOR, failedOutcome({ agent: args.agent, instanceKey: args.instanceKey, eventId: event.id, error: failure })));
    } finally {
      clearInterval(heartbeat);
      currentAbort = undefined;
      busy = false;
      askForTurnIfResultsWait();
    }
  };

  const shutdown = async (reason: string, grace: number): Promise<void> => {
    if (shuttingDown) return;
    shuttingDown = true;
    queue.clear(); // not started: they stay in the orchestrator's durable inbox
    const timer = setTimeout(() => currentAbort?.abort(new Error("shutdown grace period over")), Math.max(0, grace));
    await queue.onIdle();
    clearTimeout(timer);
    instance?.close();
    send(envelope("shutdown_ack", address, ORCHESTRATOR, { reason }));
    logger.info({ reason }, "agent stopped");
    options.exit(0);
  };

  options.onStopSignal?.((signal) => void shutdown(signal, gracePeriodMs));

  channel.onDisconnect(() => {
    logger.warn("IPC channel lost (the orchestrator is gone); exiting");
    currentAbort?.abort(new Error("parent gone"));
    runtime.failAll("the orchestrator is gone");
    options.exit(0);
  });

  const ready = (async () => {
    const bundle = await options.loadBundle(args.bundle);
    const created = await createAgentInstance({
      bundle,
      swarm: args.swarm,
      agent: args.agent,
      instanceKey: args.instanceKey,
      stateRoot: args.stateRoot,
      runtime,
      logger,
      // Tool calls reach whoever waits on the turn (a terminal chat's tool lines) as they happen.
      onRuntimeEvent: (runtimeEvent) => {
        const progress = toolProgress({ event: runtimeEvent, agent: args.agent, instanceKey: args.instanceKey });
        if (progress !== undefined) send(envelope("turn_progress", address, ORCHESTRATOR, progress));
      },
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.model === undefined ? {} : { model: options.model }),
    });
    gracePeriodMs = created.policy.gracePeriodMs;
    requestTimeoutMs = created.policy.requestTimeoutMs;
    return created.instance;
  })();

  channel.onMessage((raw) => {
    if (!isParentMessage(raw)) return logger.warn({ raw }, "ignored a message that is not a parent envelope");
    switch (raw.type) {
      case "event":
        if (shuttingDown) return;
        void queue.add(async () => {
          await ready.catch(() => undefined);
          await handleEvent(raw);
        });
        return;
      case "runtime_result":
        return runtime.handleRuntimeResult(raw.payload);
      case "delegate_result":
        return runtime.handleDelegateResult(raw.payload);
      case "shutdown":
        void shutdown(raw.payload.reason, raw.payload.gracePeriodMs ?? gracePeriodMs);
        return;
    }
  });

  try {
    instance = await ready;
  } catch (error) {
    const code = isGoondanError(error) ? error.code : "AGENT_START_FAILED";
    const message = describe(error).message;
    logger.error({ code, err: error }, "agent failed to start");
    send(envelope("fatal", address, ORCHESTRATOR, { code, message }));
    options.exit(1);
    return;
  }
  send(envelope("ready", address, ORCHESTRATOR, { pid: process.pid, agent: args.agent, instanceKey: args.instanceKey }));
  logger.info("agent ready");
  instance.onPendingResult(askForTurnIfResultsWait);
  askForTurnIfResultsWait(); // results stored before a crash or restart
}
