/** What a cluster node is joined with (its settings) and attached to (the orchestrator as its host): node/node.ts. */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ClusterSettings } from "../nats/settings.ts";
import type { ReadHost } from "../view/reads.ts";
import type { OwnerHost } from "../instances/owned-instances.ts";

export interface ClusterHost extends OwnerHost, ReadHost {
  answeredElsewhere(event: AgentEvent, outcome: TurnOutcome): void;
}

export interface JoinNodeOptions {
  settings: ClusterSettings;
  /** The swarm's instanceKey: names every bucket, stream and subject of the cluster. */
  swarm: string;
  bundleDir: string;
  maxProcesses: number;
  logger: Logger;
  /** Default 10000. */
  ttlMs?: number;
}
