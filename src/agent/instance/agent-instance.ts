/**
 * One running agent instance: handles delivered events one at a time and commits each turn. Commit order is
 * result first (results.jsonl, fsync), then fold the conversation, so a crash at any point leaves either
 * "not committed" (redelivery resumes the turn from base + events) or "committed" (redelivery answers the stored
 * result without calling the model; leftover events of a committed turn are folded on start).
 */
import { RESULTS_ARRIVED_EVENT, type AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { ResultsLog } from "../conversation/results-log.ts";
import type { PendingResults, DelegateResult } from "../conversation/pending-results.ts";
import { commits } from "../loop/next-step.ts";
import { runTurn } from "../loop/run-turn.ts";
import type { TurnEnvironment } from "../loop/turn-environment.ts";

export interface AgentInstanceParts {
  env: TurnEnvironment;
  results: ResultsLog;
  pendingResults: PendingResults;
  /** Extra cleanup (extension state, log files). */
  onClose?: () => void;
}

export class AgentInstance {
  constructor(private readonly parts: AgentInstanceParts) {
    this.foldCommittedLeftovers();
  }

  get env(): TurnEnvironment {
    return this.parts.env;
  }

  /**
   * Exactly one result per call; never throws for turn failures. Returns undefined when the turn was aborted
   * (shutdown grace over, or the orchestrator gone): nothing is committed, so the event stays in the
   * orchestrator's durable inbox and its redelivery resumes the turn from base + events.
   */
  async handleEvent(options: { event: AgentEvent; attempt: number; crashedBefore?: string; signal?: AbortSignal; onTurnStarted?: (turnId: string) => void }): Promise<TurnOutcome | undefined> {
    const { event } = options;
    const committed = this.parts.results.get(event.id);
    if (committed !== undefined) {
      this.parts.env.logger.info({ eventId: event.id, attempt: options.attempt }, "redelivered event already committed; answering the stored result");
      return { ...committed, agent: this.parts.env.agentName, instanceKey: this.parts.env.instanceKey };
    }
    const turnId = this.parts.env.ids("turn");
    if (event.type === RESULTS_ARRIVED_EVENT && this.pendingResultCount === 0) {
      // An earlier turn showed them already: nothing to wake the model for.
      const payload: TurnOutcome = { status: "ok", agent: this.parts.env.agentName, instanceKey: this.parts.env.instanceKey, eventId: event.id, turnId, response: "", finishReason: "nothing_pending" };
      this.parts.results.record(payload);
      return payload;
    }
    options.onTurnStarted?.(turnId);
    const ending = await runTurn({
      env: this.parts.env,
      event,
      turnId,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.crashedBefore === undefined ? {} : { crashedBefore: options.crashedBefore }),
    });
    if (!commits(ending)) {
      this.parts.env.logger.warn({ eventId: event.id, turnId }, "turn aborted; left uncommitted for redelivery");
      return undefined;
    }
    const { steps: _steps, usage: _usage, ...outcome } = ending.result;
    this.parts.results.record(outcome);
    this.parts.env.store.fold();
    return outcome;
  }

  /** A reply to an async request: kept durably until shown to the model. */
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
    this.parts.env.store.close();
    this.parts.results.close();
    this.parts.pendingResults.close();
    this.parts.onClose?.();
  }

  private foldCommittedLeftovers(): void {
    const pending = this.parts.env.store.pendingEvents;
    if (pending.length > 0 && pending.every((line) => this.parts.results.get(line.eventId) !== undefined)) this.parts.env.store.fold();
  }
}
