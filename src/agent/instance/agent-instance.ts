/**
 * One running agent instance: handles delivered events one at a time. A turn's end is one commit: its outcome
 * together with what it changed since its last commit (messages, pending results shown), which the orchestrator's
 * store makes durable in one transaction with the answer to the event — so a crash leaves the event either
 * unanswered (redelivered; the turn resumes from what was committed) or answered (never delivered again).
 */
import { SystemError } from "../../shared/errors.ts";
import { RESULTS_ARRIVED_EVENT, type AgentEvent } from "../../protocol/agent-event.ts";
import type { Approval } from "../../protocol/approval.ts";
import type { InstanceCommit } from "../../protocol/instance-state.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { DelegateResult, PendingResults } from "../conversation/pending-results.ts";
import { commits } from "../loop/next-step.ts";
import { runTurn } from "../loop/run-turn.ts";
import type { TurnEnvironment } from "../loop/turn-environment.ts";

export interface AgentInstanceParts {
  env: TurnEnvironment;
  pendingResults: PendingResults;
}

/** How a handled event ended: its outcome and the commit that goes with it. */
export interface HandledEvent {
  outcome: TurnOutcome;
  commit: InstanceCommit;
}

export class AgentInstance {
  constructor(private readonly parts: AgentInstanceParts) {}

  get env(): TurnEnvironment {
    return this.parts.env;
  }

  /**
   * Exactly one result per call; never throws for turn failures. Returns undefined when the turn was aborted
   * (shutdown grace over, or the orchestrator gone): nothing more is committed, so the event stays unanswered in
   * the orchestrator's inbox and its redelivery resumes the turn from what was committed.
   */
  async handleEvent(options: {
    event: AgentEvent;
    attempt: number;
    redelivery?: boolean;
    crashedBefore?: string;
    approvals?: Approval[];
    signal?: AbortSignal;
    onTurnStarted?: (turnId: string) => void;
  }): Promise<HandledEvent | undefined> {
    const { event } = options;
    const { env } = this.parts;
    // A turn that stopped for approvals goes on as the same turn.
    const turnId = options.approvals?.[0]?.turnId ?? env.ids("turn");
    if (event.type === RESULTS_ARRIVED_EVENT && this.pendingResultCount === 0) {
      // An earlier turn showed them already: nothing to wake the model for.
      return {
        outcome: {
          status: "ok",
          agent: env.agentName,
          instanceKey: env.instanceKey,
          eventId: event.id,
          turnId,
          response: "",
          finishReason: "nothing_pending",
        },
        commit: {},
      };
    }
    options.onTurnStarted?.(turnId);
    const ending = await runTurn({
      env,
      event,
      turnId,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.crashedBefore === undefined ? {} : { crashedBefore: options.crashedBefore }),
      ...(options.redelivery === true || options.attempt > 1 ? { redelivery: true } : {}),
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    });
    if (ending.type === "unsaved") {
      // This process now holds messages the store does not: only a fresh start from the store is consistent again.
      throw new SystemError(
        ending.result.error?.code ?? "E_STORE_WRITE_FAILED",
        `the store refused a step of turn ${turnId}: ${ending.result.error?.message ?? "unknown error"}`,
      );
    }
    if (!commits(ending)) {
      env.conversation.dropChanges();
      env.logger.warn({ eventId: event.id, turnId }, "turn aborted; left uncommitted for redelivery");
      return undefined;
    }
    const { steps: _steps, responseMessage: _responseMessage, ...outcome } = ending.result;
    const requested = env.approvals?.takeRequested() ?? [];
    return {
      outcome,
      commit: {
        changes: env.conversation.takeChanges(),
        consumed: this.parts.pendingResults.takeConsumed(),
        ...(requested.length === 0 ? {} : { approvals: { requested } }),
      },
    };
  }

  /** A reply to an async request (the orchestrator stored it before handing it over): kept until shown to the model. */
  addPendingResult(result: DelegateResult): void {
    this.parts.pendingResults.add(result);
  }

  /** Results (async replies, tool completions) stored and not yet shown to the model. */
  get pendingResultCount(): number {
    return this.parts.pendingResults.list().length;
  }

  /** Called whenever a result is stored, from whichever source. */
  onPendingResult(listener: () => void): void {
    this.parts.pendingResults.onAdded(listener);
  }

  close(): void {
    this.parts.pendingResults.close();
  }
}
