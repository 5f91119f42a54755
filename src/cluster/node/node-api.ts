/** What one node of a cluster asks another (NodeApi, over ClusterMessenger); answer-return.ts sends `outcome`. */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { Delivered } from "../instances/held-mail.ts";
import type { NodeReadApi } from "../view/reads.ts";
import type { LiveApi } from "../live/live-interest.ts";

/** What one node asks another. */
export type NodeApi = {
  /** The answer of an event this node accepted and another ran. */
  outcome: { request: { event: AgentEvent; outcome: TurnOutcome }; response: { settled: true } };
  /** Claim an unowned instance here. */
  place: { request: { agent: string; instanceKey: string }; response: { owner: boolean } };
  /** Apply the signals and decisions kept for an instance this node runs (instances/held-mail.ts). */
  signals: { request: { agent: string; instanceKey: string }; response: Delivered };
} & NodeReadApi &
  LiveApi;
