/**
 * The seam where "the target instance is local" becomes "the target instance is on node X" (cluster mode,
 * src/cluster). Without a placement the orchestrator accepts every event into its own instances and routes every
 * answer locally, exactly as on one host. With one, every event the orchestrator accepts (submit, connectors,
 * agents' requests and sends, results-arrived wakes) goes to `accept`, which stores it durably in the cluster and
 * has it reach the node owning the instance; that node hands it back through `Orchestrator.acceptHere`. An event
 * accepted on another node is answered there: `from` says so, and `answered` carries each answer back.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { SignalRouting } from "../approvals/signal-routing.ts";

export interface EventPlacement {
  /** Accepts an event for its instance wherever that runs; resolves once the cluster stores it durably. */
  accept(event: AgentEvent): Promise<void>;
  /** True when this event was accepted on another node, whose waiters and requester get its answer. */
  from(event: AgentEvent): boolean;
  /** The answer of an event taken in through the placement is durable here (its turn ended, or it was given up). */
  answered(event: AgentEvent, outcome: TurnOutcome): void;
  /** Signals sent to any node reach the turns waiting for them on every node (signal-routing.ts). */
  readonly signals?: SignalRouting;
  /** Has `host` told of each instance this node takes over, once its durable state is here. */
  attachTakeover?(host: TakeoverHost): void;
}

/** What an orchestrator does with an instance its node took over (resume-unanswered.ts, resumeTakenOver). */
export interface TakeoverHost {
  /**
   * Holds the instance while its turn waits for approvals (their deadlines armed here) and waits again for its
   * messages for later; resolves with the ids of those messages (undefined: its agent is not in the swarm, and
   * whatever it holds is left as it is).
   */
  taken(agent: string, instanceKey: string): Promise<string[] | undefined>;
}
