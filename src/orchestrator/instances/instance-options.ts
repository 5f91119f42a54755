/**
 * What an Instance is built from: its names and inbox, how its child is spawned, the clock and the Swarm
 * policy (read on every decision, so a reload applies at once), the process pool it takes a slot from, and the
 * hooks through which it tells the orchestrator about turn results, given-up events and runtime calls.
 */
import type { SwarmPolicy } from "../../config/types.ts";
import type { ErrorInfo } from "../../protocol/error-info.ts";
import type { ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { TurnProgress } from "../../protocol/turn-progress.ts";
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import type { PoolMember } from "../../supervision/process-pool.ts";
import type { ProcessSpawner, SpawnRequest } from "../../supervision/process-spawner.ts";
import type { DurableInbox, InboxEntry } from "./durable-inbox.ts";

/** The instance as its hooks see it. */
export interface InstanceRef {
  readonly agent: string;
  readonly instanceKey: string;
  readonly address: string;
  readonly inFlight: InboxEntry | undefined;
  hasWork(): boolean;
  runtimeResult(result: ParentToChild["runtime_result"]): void;
}

export interface InstanceHooks {
  turnResult(instance: InstanceRef, entry: InboxEntry, result: TurnOutcome): void;
  /**
   * The event was given up and removed from the inbox: it crashed the child `maxConsecutiveCrashes` times,
   * or (with `cause`) the instance cannot start at all.
   */
  poisoned(instance: InstanceRef, entry: InboxEntry, cause?: ErrorInfo): void;
  runtimeCall(instance: InstanceRef, call: ChildToParent["runtime_call"]): void;
  /** The child holds results its model has not seen and asks for a turn (`results_waiting`). */
  resultsWaiting(instance: InstanceRef, waiting: ChildToParent["results_waiting"]): void;
  /** The running turn's progress (`turn_progress`: a tool call started or ended). */
  turnProgress(instance: InstanceRef, progress: TurnProgress): void;
}

/** The process pool as an instance uses it (process-pool.ts). */
export interface InstanceSlots {
  request(member: PoolMember): void;
  started(member: PoolMember): void;
  released(member: PoolMember): void;
  idled(member: PoolMember): void;
}

export interface InstanceOptions {
  agent: string;
  instanceKey: string;
  inbox: DurableInbox;
  spawner: ProcessSpawner;
  spawnRequest: () => SpawnRequest;
  clock: Clock;
  policy: () => SwarmPolicy;
  pool: InstanceSlots;
  hooks: InstanceHooks;
  logger: Logger;
  /** A child that sends no `ready` within this time is killed and counted as a crash. Default 30000. */
  readyTimeoutMs?: number;
}
