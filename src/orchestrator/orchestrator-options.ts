/**
 * The Orchestrator's option and result shapes: construction options (with their defaults), `submit` options and
 * handle, and the restart requester that answers an agent's self-restart (the daemon's restart coordinator).
 */
import type { Bundle } from "../config/types.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import type { JsonObject } from "../shared/json.ts";
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { RestartAnswer } from "../protocol/restart-answer.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { TurnProgress } from "../protocol/turn-progress.ts";
import type { ProcessSpawner } from "../supervision/process-spawner.ts";
import type { Store } from "../store/store.ts";
import type { EventPlacement } from "./routing/event-placement.ts";

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
  /** A stable id (a schedule's tick, see `Orchestrator.submitOnce`). Default: a new one. */
  eventId?: string;
  /** Receives the progress of the event's turn and of the turns it delegates to, until its outcome settles. Default: none. */
  onProgress?: (progress: TurnProgress) => void;
}

export interface Submitted {
  eventId: string;
  agent: string;
  instanceKey: string;
  /** Resolves once the event is durable (events accepted in the same tick share one sync): acknowledge it then. */
  accepted: Promise<void>;
  /** Settles when the event's turn ends (or the orchestrator stops first). */
  outcome: Promise<TurnOutcome>;
}

/** Where an agent's self-restart goes: validated on disk, answered, applied once the asking turn committed. */
export interface RestartRequester {
  request(request: { reason: string; afterTurn: Promise<unknown> }): Promise<RestartAnswer>;
}

export interface OrchestratorOptions {
  bundle: Bundle;
  /** Default: the bundle's only Swarm. */
  swarm?: string;
  stateRoot: string;
  spawner: ProcessSpawner;
  /** The swarm's durable state. Default: the embedded store of the state root (`<stateRoot>/goondan.db`). */
  store?: Store;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: `newId`. */
  ids?: IdGenerator;
  /** Default: silent. */
  logger?: Logger;
  /** Extra environment for children (e.g. GOONDAN_RECORD_CASSETTE). Default: none. */
  childEnv?: Record<string, string>;
  /**
   * The environment children's variables are taken from. Each agent child gets only the basics and the
   * variables its own resources name (see child-environment.ts), never all of it. Default: process.env.
   */
  env?: Record<string, string | undefined>;
  /** Answers `runtime.restart` (self-restart). Default: none, and a self-restart is refused (E_RESTART_UNAVAILABLE). */
  restarts?: RestartRequester;
  /** Default 30000. */
  readyTimeoutMs?: number;
  /** Children starting at the same time. Default: twice the CPUs, at least 2. */
  maxConcurrentSpawns?: number;
  /**
   * Cluster mode: where events go to reach the node owning their instance (src/cluster). Default: none, every
   * instance is local. Read at each accept, so the daemon may set it after construction (`Orchestrator.place`).
   */
  placement?: EventPlacement;
}
