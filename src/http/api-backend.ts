/**
 * What the HTTP API serves, as the daemon gives it: the swarm's agents (submit, instance table and files), the
 * process table of agents and connectors together, the state of an accepted event, the runtime events (stored, and
 * live), restart requests (validated, coalesced, applied), and the approvals of held tool calls.
 */
import type { Approval } from "../protocol/approval.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { EventState } from "../orchestrator/routing/event-state.ts";
import type { RestartAnswer } from "../protocol/restart-answer.ts";
import type { DecideAnswer, DecideRequest } from "../orchestrator/approvals/approval-desk.ts";
import type { RuntimeEventQuery, StoredRuntimeEvent } from "../store/store.ts";
import type { ProcessInfo } from "../supervision/process-table.ts";
import type { SubmitOptions, Submitted } from "../orchestrator/orchestrator-options.ts";
import type { InstanceRow } from "../orchestrator/instances/stored-instances.ts";
import type { RestartRequest } from "../orchestrator/reload/restart-coordinator.ts";
import type { SwarmView } from "../orchestrator/swarm-view.ts";
import type { Message } from "../protocol/conversation.ts";
import type { SwarmMetrics } from "../observability/swarm-metrics.ts";

export interface ApiBackend {
  readonly swarm: SwarmView;
  submit(options: SubmitOptions): Submitted;
  /** Agents and connectors. */
  processes(): ProcessInfo[];
  instances(): Promise<InstanceRow[]>;
  /** Runtime events of the swarm, oldest first (`limit`: the newest ones). */
  runtimeEvents(query: Omit<RuntimeEventQuery, "swarm">): Promise<StoredRuntimeEvent[]>;
  /** Where an accepted event stands (`GET /v1/events/:eventId`); undefined: never accepted. */
  eventState(eventId: string): Promise<EventState | undefined>;
  /** Hands every batch of runtime events to `listener` as it arrives (`GET /v1/watch`); returns the unsubscribe. */
  watch(listener: (events: readonly RuntimeEvent[]) => void): () => void;
  /** `GET/POST /v1/approvals`; absent: 501. */
  approvals?: {
    pending(): Promise<Approval[]>;
    decide(request: DecideRequest): Promise<DecideAnswer>;
  };
  /** `POST /v1/restart`; absent: 501. */
  restart?(request: RestartRequest): Promise<RestartAnswer>;
  /** An instance's stored conversation (`GET /v1/instances/:agent/:instanceKey/messages`); absent: 404. */
  messages?(agent: string, instanceKey: string): Promise<Message[]>;
  /** `GET /metrics`; absent: 404. */
  readonly metrics?: SwarmMetrics;
}
