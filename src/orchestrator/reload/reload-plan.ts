/**
 * A reload to apply: the new validated bundle, which agents and single instances restart, and whose
 * conversations are cleared. The restart coordinator builds one per batch of restart requests; `--watch` builds
 * one per file change; the orchestrator and the connectors apply it.
 */
import type { Bundle } from "../../config/types.ts";
import type { InstanceTarget } from "./restart-scope.ts";

export interface ReloadPlan {
  bundle: Bundle;
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
  /** Why, for logs: the reasons of every coalesced request. */
  reasons?: string[];
}
