/**
 * What the HTTP API serves: the orchestrator itself (the swarm, submit, instances and conversations, event states,
 * runtime events, approvals: `OrchestratorApi`), and what the daemon composes around it: the process table of
 * agents and connectors together, restart requests, the schedules, the eval runs kept, the metrics, and on a cluster node the cluster's reads, live
 * events and standing, which the routes serve instead of this node's own.
 */
import type { ClusterReloadStatus } from "../cluster/reload/reload.ts";
import type { ClusterReads } from "../cluster/view/reads.ts";
import type { ClusterLive } from "../cluster/live/live-interest.ts";
import type { ClusterStatus } from "../cluster/instances/outage-recovery.ts";
import type { ScheduleRow } from "../connector/schedule/schedule-runner.ts";
import type { SwarmMetrics } from "../observability/swarm-metrics.ts";
import type { OrchestratorApi } from "../orchestrator/orchestrator-api.ts";
import type { RestartRequest } from "../orchestrator/reload/restart-coordinator.ts";
import type { RestartAnswer } from "../protocol/restart-answer.ts";
import type { EvalRuns } from "../store/eval-runs.ts";
import type { ProcessInfo } from "../supervision/process-table.ts";

/** A cluster node's part of the API. */
export interface ClusterApi {
  /**
   * The reads served for every node instead of this one's (the process and instance tables, runtime events, a
   * conversation, an event's state), each row naming its node and each answer naming the nodes that did not answer.
   */
  readonly reads: ClusterReads;
  /** The other nodes' live runtime events (`GET /v1/watch` shows every node's, each naming its node). */
  readonly live?: ClusterLive;
  /** This node, the bundle it runs, the cluster's, and each node's report of the last reload (`GET /v1/cluster`). */
  status(): Promise<ClusterReloadStatus>;
  /** This node's standing (connected or not, member, instances held and awaiting reclaim). */
  standing(): ClusterStatus;
}

export interface ApiBackend {
  readonly orchestrator: OrchestratorApi;
  /** Agents and connectors. */
  processes(): ProcessInfo[];
  /** `GET /v1/schedules` and `POST /v1/schedules/:name/run` (the Connections of the `schedule` connector); absent: 501. */
  schedules?: {
    list(): Promise<ScheduleRow[]>;
    /** Undefined: no schedule of that name. */
    run(connection: string): Promise<{ eventId: string } | undefined>;
  };
  /** `GET /v1/evals` and `GET /v1/evals/:runId`: the `goondan eval` runs kept under the state root; absent: 501. */
  readonly evals?: EvalRuns;
  /** `POST /v1/restart`; absent: 501. */
  restart?(request: RestartRequest): Promise<RestartAnswer>;
  /** `GET /metrics`; absent: 404. */
  readonly metrics?: SwarmMetrics;
  /** Present on a cluster node. */
  readonly cluster?: ClusterApi;
}
