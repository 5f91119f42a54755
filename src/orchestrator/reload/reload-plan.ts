/**
 * A reload to apply: the new validated bundle, which agents and single instances restart, and whose
 * conversations are cleared. The restart coordinator builds one per batch of restart requests; `--watch` builds
 * one per file change; the orchestrator and the connectors apply it. In a cluster, a plan the restart coordinator
 * built from a request made on this node is also announced to the other nodes (`announce`), with its scope.
 */
import type { Bundle } from "../../config/types.ts";
import type { InstanceTarget } from "./restart-scope.ts";

/** What restarts and what is cleared: the part of a plan that another node of a cluster applies to its own instances. */
export interface ReloadScope {
  /**
   * Agents whose instances all restart; undefined means all of them. Empty when only single instances
   * were named (`instances`).
   */
  agents?: string[];
  /** Single instances that restart besides those of `agents` (`goondan restart --agent A --instance K`). */
  instances?: InstanceTarget[];
  /** Clear the conversations of every restarted instance: some coalesced request was `--fresh` for all agents. Default false. */
  fresh?: boolean;
  /**
   * Agents whose restarted instances also get their conversations cleared: those named by a `--fresh`
   * request (`goondan restart --agent NAME --fresh`). Fresh never spreads to agents no fresh request named.
   */
  freshAgents?: string[];
  /** Single instances whose conversations are cleared (`--agent A --instance K --fresh`), besides `freshAgents`. */
  freshInstances?: InstanceTarget[];
}

export interface ReloadPlan extends ReloadScope {
  bundle: Bundle;
  /** Why, for logs: the reasons of every coalesced request. */
  reasons?: string[];
  /**
   * Cluster mode: announce this reload to every other node (some request of the batch was made on this node, not
   * relayed from another node's announcement). Default false (`--watch` reloads only its own node).
   */
  announce?: boolean;
}
