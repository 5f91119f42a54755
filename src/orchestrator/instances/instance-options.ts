/**
 * What an Instance is built from: its names and the store, how its child is spawned, the clock and the Swarm
 * policy (read on every decision, so a reload applies at once), the process pool it takes a slot from, and the
 * hooks through which it tells the orchestrator about turn results, given-up events and runtime calls.
 */
import type { SwarmPolicy } from "../../config/types.ts";
import type { ErrorInfo } from "../../protocol/error-info.ts";
import type { ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import type { PoolMember } from "../../supervision/process-pool.ts";
import type { ProcessSpawner, SpawnRequest } from "../../supervision/process-spawner.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { Store } from "../../store/store.ts";
import type { StoredWrite } from "../../store/stored-write.ts";
import type { InboxEntry } from "./instance-queue.ts";

/** The instance as its hooks see it. */
export interface InstanceHandle {
  readonly agent: string;
  readonly instanceKey: string;
  readonly address: string;
  readonly inFlight: InboxEntry | undefined;
  hasWork(): boolean;
  runtimeResult(result: ParentToChild["runtime_result"]): void;
}

export interface InstanceHooks {
  /**
   * A turn ended: its commit (with the answer) is made, stored once `write.committed` resolves and durable once
   * `write.durable` does (both reject when the store refuses it: the event stays unanswered).
   */
  turnResult(instance: InstanceHandle, entry: InboxEntry, result: TurnOutcome, write: StoredWrite): void;
  /**
   * The event was given up and removed from the inbox: it crashed the child `maxConsecutiveCrashes` times,
   * or (with `cause`) the instance cannot start at all.
   */
  poisoned(instance: InstanceHandle, entry: InboxEntry, cause?: ErrorInfo): void;
  runtimeCall(instance: InstanceHandle, call: ChildToParent["runtime_call"]): void;
  /** The child holds results its model has not seen and asks for a turn (`results_waiting`). */
  resultsWaiting(instance: InstanceHandle, waiting: ChildToParent["results_waiting"]): void;
  /** The running turn's streamed text (relayed to whoever waits on its event, if anyone). */
  turnDelta(instance: InstanceHandle, text: ChildToParent["turn_delta"]): void;
  /** An event whose earlier delivery ended without an answer (a crash) is delivered again: its streamed text starts over. */
  redelivered(instance: InstanceHandle, entry: InboxEntry): void;
  /** The child's runtime events (stored, and streamed to watchers). */
  runtimeEvents(instance: InstanceHandle, events: RuntimeEvent[]): void;
  /** A child process was spawned (its resource limits are applied here: docs/limits.md#resource-limits). */
  spawned?(instance: InstanceHandle, pid: number): void;
  /** A resource limit ended the child with this event in flight: the event is answered with the limit's error. */
  limitExceeded?(instance: InstanceHandle, entry: InboxEntry, error: ErrorInfo): void;
}

/** The process pool as an instance uses it (process-pool.ts). */
export interface InstanceSlots {
  request(member: PoolMember): void;
  started(member: PoolMember): void;
  released(member: PoolMember): void;
  idled(member: PoolMember): void;
}

export interface InstanceOptions {
  /** The Swarm's instanceKey (its state in the store is kept under it). */
  swarm: string;
  agent: string;
  instanceKey: string;
  store: Store;
  spawner: ProcessSpawner;
  spawnRequest: () => SpawnRequest;
  /** Its agent's slot group in the process pool (shared processes' capacity, or own processes' cap). */
  slotGroup?: () => { key: string; max: number; cheapStart: boolean };
  clock: Clock;
  policy: () => SwarmPolicy;
  pool: InstanceSlots;
  hooks: InstanceHooks;
  logger: Logger;
  /** A child that sends no `ready` within this time is killed and counted as a crash. Default 30000. */
  readyTimeoutMs?: number;
}
