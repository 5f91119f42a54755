/**
 * The Orchestrator's option and result shapes: construction options (with their defaults), `submit`
 * options and handle, `reload` options, and the self-restart handler seam.
 */
import type { Bundle } from "../config/types.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import type { JsonObject } from "../shared/json.ts";
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { InstanceTarget, LoadedBundle } from "./reload/restart-coordinator.ts";
import type { ProcessSpawner } from "../supervision/process-spawner.ts";
import type { RestartAnswer } from "../protocol/restart-answer.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { Orchestrator } from "./orchestrator.ts";

export interface SubmitOptions {
  input: string;
  /** Default: the Swarm's entry agent. */
  agent?: string;
  /** Default: the Swarm's instanceKey. */
  instanceKey?: string;
  /** Default `user.input`. */
  type?: string;
  source?: AgentEvent["source"];
  metadata?: JsonObject;
  traceId?: string;
}

export interface Submitted {
  eventId: string;
  agent: string;
  instanceKey: string;
  /** Settles when the event's turn ends (or the orchestrator stops first). */
  outcome: Promise<TurnOutcome>;
}

export interface ReloadOptions {
  bundle: Bundle;
  /** Restart only these agents' instances; all when absent. An empty list applies policy only (plus `instances`). */
  agents?: string[];
  /** Also restart these single instances (`goondan restart --agent A --instance K`). Default: none. */
  instances?: InstanceTarget[];
  /** Clear the restarted instances' conversations. Default false. */
  fresh?: boolean;
  /** Clear only these agents' restarted instances' conversations (when `fresh` is not set). */
  freshAgents?: string[];
  /**
   * Clear these single instances' conversations. Default: none. A named instance with no supervisor (never
   * started by this orchestrator) has its conversation on disk cleared, if it has one.
   */
  freshInstances?: InstanceTarget[];
  reasons?: string[];
}

export type RestartHandler = (request: { reason: string; requester: { agent: string; instanceKey: string }; afterTurn: Promise<unknown>; orchestrator: Orchestrator }) => Promise<RestartAnswer>;

export interface OrchestratorOptions {
  bundle: Bundle;
  /** Default: the bundle's only Swarm. */
  swarm?: string;
  stateRoot: string;
  spawner: ProcessSpawner;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: `newId`. */
  ids?: IdGenerator;
  /** Default: silent. */
  logger?: Logger;
  /** Extra environment for children (e.g. GOONDAN_RECORD_CASSETTE). */
  childEnv?: Record<string, string>;
  /**
   * The environment children's variables are taken from. Each agent child gets only the basics and the
   * variables its own resources name (see child-environment.ts), never all of it. Default: process.env.
   */
  env?: Record<string, string | undefined>;
  /** Answers `runtime.restart` (self-restart). Default: `orchestrator.restart` (validate on disk, then reload after the turn). */
  restartHandler?: RestartHandler;
  /** Validates the bundle on disk for restarts. Default: `loadBundle(bundle.dir)`. */
  loadBundle?: (dir: string) => Promise<LoadedBundle>;
  /** Default 30000. */
  readyTimeoutMs?: number;
  /** Children starting at the same time. Default: twice the CPUs, at least 2. */
  maxConcurrentSpawns?: number;
}
