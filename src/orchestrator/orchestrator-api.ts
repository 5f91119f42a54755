/**
 * What the world outside the orchestrator may ask of it: the swarm it runs, accepting an event, the instance table
 * and conversations, where an accepted event stands, the runtime events (stored and live) and the approvals desk.
 * The Orchestrator implements it, and the HTTP API is served from it directly: no layer re-forwards these calls.
 */
import type { BudgetStatus } from "./limits/budget-ledger.ts";
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { Message } from "../protocol/conversation.ts";
import type { RuntimeEventQuery, StoredRuntimeEvent } from "../store/store.ts";
import type { DecideAnswer, DecideRequest } from "./approvals/approval-desk.ts";
import type { Approval } from "../protocol/approval.ts";
import type { JsonValue } from "../shared/json.ts";
import type { InstanceRow } from "./instances/stored-instances.ts";
import type { SubmitOptions, Submitted } from "./orchestrator-options.ts";
import type { AcceptedEvent, EventState } from "./routing/event-state.ts";
import type { RuntimeEventListener } from "./routing/runtime-event-hub.ts";
import type { SwarmView } from "./swarm-view.ts";

export interface OrchestratorApi {
  readonly swarm: SwarmView;
  /** Accepts an event durably; `done` settles with its turn's outcome. */
  submit(options: SubmitOptions): Submitted;
  /** Live instances and the ones only on disk. */
  instances(): Promise<InstanceRow[]>;
  /** An instance's stored conversation. */
  messages(agent: string, instanceKey: string): Promise<Message[]>;
  /** Where an accepted event stands; undefined: never accepted. */
  eventState(eventId: string): Promise<EventState | undefined>;
  /** The newest `limit` accepted events whose id starts with `idPrefix`, newest first, each with where it stands. */
  acceptedEvents(query: { idPrefix: string; limit: number }): Promise<AcceptedEvent[]>;
  /** Runtime events of the swarm, oldest first (`limit`: the newest ones). */
  runtimeEvents(query: Omit<RuntimeEventQuery, "swarm">): Promise<StoredRuntimeEvent[]>;
  /** Hands every batch of runtime events to `listener` as it arrives; returns the unsubscribe. */
  onRuntimeEvents(listener: RuntimeEventListener): () => void;
  /** Events accepted to be delivered later (`agents__schedule`), soonest first. */
  scheduled(): Promise<AgentEvent[]>;
  /** The budgets with a counter in their current window (docs/limits.md#budgets). */
  budgets?(): Promise<BudgetStatus[]>;
  /** The tool calls held for a person's decision, and those suspended for a time or a signal (the `timer` tool). */
  readonly approvals: {
    pending(): Promise<Approval[]>;
    decide(request: DecideRequest): Promise<DecideAnswer>;
    suspended(): Promise<Approval[]>;
    /** Wakes the calls waiting for the signal `name` with `payload`; `missing` when none waits. */
    signal(
      name: string,
      payload: JsonValue,
    ): Promise<{ type: "delivered"; approvals: Approval[] } | { type: "missing" }>;
  };
}
