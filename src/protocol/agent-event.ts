/**
 * The event an agent instance handles, as it travels from whoever accepted it (HTTP, a connector, another
 * agent's request) through the orchestrator's inbox to the agent child, and the address of an instance.
 */
import type { JsonObject } from "../shared/json.ts";

/** An instance address: `agent/instanceKey`. */
export type InstanceAddress = string;
export const instanceAddress = (agent: string, instanceKey: string): InstanceAddress => `${agent}/${instanceKey}`;

export interface AgentEvent {
  id: string;
  /** `user.input`, `agent.request`, `agent.send`, `connector.<event>`, `results.arrived` … */
  type: string;
  input: string;
  /** Target agent name. */
  agent: string;
  instanceKey: string;
  source: { kind: "user" | "agent" | "connector" | "api" | "system"; name: string; instanceKey?: string };
  /** Present when the sender waits for a reply. `target` is the requesting instance address. */
  /** Where the answer goes; `async`: the requester's turn does not wait for it (it becomes a pending result). */
  replyTo?: { target: InstanceAddress; correlationId: string; async?: true };
  traceId: string;
  /** The caller's tool span, when delegated. */
  parentSpanId?: string;
  /** Agent names from the original caller to the sender, inclusive, for cycle and depth checks. */
  callChain: string[];
  /** Epoch ms after which a reply is dropped. */
  deadline?: number;
  /**
   * Epoch ms before which it is not delivered (`agents__schedule`): it waits, accepted and durable, in its instance's
   * inbox until then, also across restarts.
   */
  notBefore?: number;
  metadata: JsonObject;
  createdAt: string;
}

/**
 * The type of the event that wakes an idle instance for results that arrived after its turn ended: its turn
 * adds no user message (the results are shown as usual before the first step), and it answers nobody.
 */
export const RESULTS_ARRIVED_EVENT = "results.arrived";
