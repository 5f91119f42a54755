/**
 * What the HTTP API serves, as the daemon gives it: the swarm's agents (submit, instance table and files), the
 * process table of agents and connectors together, the state of an accepted event, the runtime events (stored, and
 * live), restart requests (validated, coalesced, applied), and the approvals of held tool calls. A cluster node
 * adds the cluster-wide reads, which the routes serve instead of this node's own.
 */
import type { Approval } from "../protocol/approval.ts";
import type { JsonValue } from "../shared/json.ts";
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
import type { ScheduleRow } from "../connector/schedule/schedule-runner.ts";
import type { ClusterReloadStatus } from "../cluster/cluster-reload.ts";
import type { ClusterStatus } from "../cluster/outage-recovery.ts";
import type { ClusterReads } from "../cluster/cluster-view.ts";
import type { ClusterLive } from "../cluster/live-interest.ts";

export interface ApiBackend {
  readonly swarm: SwarmView;
  submit(options: SubmitOptions): Submitted;
  /** Agents and connectors. */
  processes(): ProcessInfo[];
  /**
   * Cluster mode: the reads served for every node instead of this one's (the process and instance tables, runtime
   * events, a conversation), each row naming its node and each answer naming the nodes that did not answer in time.
   */
  readonly clusterReads?: ClusterReads;
  /** Cluster mode: the other nodes' live runtime events (`GET /v1/watch` shows every node's, each naming its node). */
  readonly clusterLive?: ClusterLive;
  /** Cluster mode: this node, the bundle it runs, the cluster's, and each node's report of the last reload (`GET /v1/cluster`). */
  clusterStatus?(): Promise<ClusterReloadStatus>;
  /** Cluster mode: this node's standing (connected or not, member, instances held and awaiting reclaim), as `/healthz` and `/v1/processes` show it. */
  clusterStanding?(): ClusterStatus;
  instances(): Promise<InstanceRow[]>;
  /** Runtime events of the swarm, oldest first (`limit`: the newest ones). */
  runtimeEvents(query: Omit<RuntimeEventQuery, "swarm">): Promise<StoredRuntimeEvent[]>;
  /** Where an accepted event stands (`GET /v1/events/:eventId`); undefined: never accepted. */
  eventState(eventId: string): Promise<EventState | undefined>;
  /** Hands every batch of runtime events to `listener` as it arrives (`GET /v1/watch`); returns the unsubscribe. */
  watch(listener: (events: readonly RuntimeEvent[]) => void): () => void;
  /** `GET /v1/schedules` and `POST /v1/schedules/:name/run`; absent: 501. */
  schedules?: {
    list(): Promise<ScheduleRow[]>;
    /** Calls suspended for a time or a signal (the `timer` tool). */
    suspended(): Promise<Approval[]>;
    /** Undefined: no schedule of that name. */
    run(connection: string): Promise<{ eventId: string } | undefined>;
  };
  /** `POST /v1/signals/:name`: wakes the calls waiting for the signal; `missing` when none waits. Absent: 501. */
  signal?(
    name: string,
    payload: JsonValue,
  ): Promise<{ type: "delivered"; approvals: Approval[] } | { type: "missing" }>;
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
