/**
 * The instance supervisor's statuses (SPEC §4), its construction options, and the hooks through which it
 * tells the orchestrator about slots, turn results, poison events and runtime calls.
 */
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import type { SwarmPolicy } from "../../config/types.ts";
import type { ChildToParent } from "../../protocol/ipc-messages.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { ProcessSpawner, SpawnRequest } from "../../supervision/process-spawner.ts";
import type { DurableInbox, InboxEntry } from "./durable-inbox.ts";
import type { InstanceSupervisor } from "./instance-supervisor.ts";

export type InstanceStatus = "spawning" | "idle" | "processing" | "draining" | "terminated" | "crashed" | "crashLoopBackOff";

export interface SupervisorHooks {
  /** The supervisor needs a process slot; the pool calls `start()` when one is free. */
  requestStart(supervisor: InstanceSupervisor): void;
  /** The child sent `ready`. */
  started(supervisor: InstanceSupervisor): void;
  /** The child is gone; its slot is free. */
  released(supervisor: InstanceSupervisor): void;
  /** Idle with nothing queued: a candidate for eviction. */
  idled(supervisor: InstanceSupervisor): void;
  turnResult(supervisor: InstanceSupervisor, entry: InboxEntry, result: TurnOutcome): void;
  /**
   * The event was given up and removed from the inbox: it crashed the child `maxConsecutiveCrashes` times,
   * or (with `cause`) the instance cannot start at all.
   */
  poisoned(supervisor: InstanceSupervisor, entry: InboxEntry, cause?: { code: string; message: string }): void;
  runtimeCall(supervisor: InstanceSupervisor, call: ChildToParent["runtime_call"]): void;
  /** The child holds results its model has not seen and asks for a turn (`results_waiting`). */
  resultsWaiting(supervisor: InstanceSupervisor, waiting: ChildToParent["results_waiting"]): void;
}

export interface InstanceSupervisorOptions {
  agent: string;
  instanceKey: string;
  inbox: DurableInbox;
  spawner: ProcessSpawner;
  spawnRequest: () => SpawnRequest;
  clock: Clock;
  /** Read on every decision, so a reload's policy applies without a restart. */
  policy: () => SwarmPolicy;
  hooks: SupervisorHooks;
  logger: Logger;
  /** A child that sends no `ready` within this time is killed and counted as a crash. Default 30000. */
  readyTimeoutMs?: number;
}
