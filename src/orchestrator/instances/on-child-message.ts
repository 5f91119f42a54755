/**
 * What an instance does with each message of its child: a turn's start and end (the end committed together with the
 * answer to its event, and routed), a step's commit, a read of its older messages, streamed text, runtime events and calls, results waiting, and a
 * fatal start-up error; and what it does when the child exits (`onChildExit`: a crash redelivers or poisons the
 * event in flight, a child that never became ready counts toward giving the instance up). Instance (instance.ts) hands its parts over; this file owns no state of its own.
 */
import type { Logger } from "../../shared/logger.ts";
import { STORE_FAULT_EXIT_CODE, type ChildMessage, type ChildToParent } from "../../protocol/ipc-messages.ts";
import { describe } from "../../shared/errors.ts";
import { STORE_UNAVAILABLE } from "../../store/store-fault.ts";
import { storedWrite } from "../../store/stored-write.ts";
import type { ChildProcess } from "../../supervision/child-process.ts";
import type { ExitVerdict, SupervisedExit } from "../../supervision/child-spec.ts";
import type { Supervisor } from "../../supervision/supervisor.ts";
import { releaseLimits } from "../../supervision/resource-limits.ts";
import type { InstanceRef } from "../../store/store.ts";
import { answerOlderMessages, commitStep, commitTurn } from "./child-state.ts";
import type { InboxEntry, InstanceQueue } from "./instance-queue.ts";
import type { InstanceHandle, InstanceOptions } from "./instance-options.ts";
import type { StartFailures } from "./start-failures.ts";
import type { StoreFaults } from "./store-faults.ts";

/** The parts of an Instance its child's messages act on. */
export interface InstanceParts {
  instance: InstanceHandle & { lastActiveAt: number };
  options: InstanceOptions;
  ref: InstanceRef;
  logger: Logger;
  events: InstanceQueue;
  supervisor: Supervisor;
  startFailures: StartFailures;
  deliverNext(): void;
  giveUpWaiting(): void;
  storeFaults: StoreFaults;
}

export function onChildMessage(parts: InstanceParts, child: ChildProcess, message: ChildMessage): void {
  const hooks = parts.options.hooks;
  switch (message.type) {
    case "turn_started":
      return void (parts.instance.lastActiveAt = parts.options.clock.now());
    case "turn_result":
      onTurnResult(parts, child, message.payload);
      return;
    case "commit":
      if (parts.storeFaults.holdsUnsaved.has(child))
        return void child.send("committed", { seq: message.payload.seq, error: UNSAVED });
      if (message.payload.approvals?.applied !== undefined) parts.events.markApplied(message.payload.approvals.applied);
      commitStep({
        store: parts.options.store,
        ref: parts.ref,
        child,
        commit: message.payload,
        refused: () => parts.storeFaults.holdsUnsaved.add(child),
      });
      return;
    case "older_messages":
      return answerOlderMessages({ store: parts.options.store, ref: parts.ref, child, request: message.payload });
    case "turn_delta":
      return hooks.turnDelta(parts.instance, message.payload);
    case "runtime_events":
      return hooks.runtimeEvents(parts.instance, message.payload.events);
    case "runtime_call":
      parts.instance.lastActiveAt = parts.options.clock.now();
      if (parts.storeFaults.holdsUnsaved.has(child))
        return void child.send("runtime_result", { callId: message.payload.callId, ok: false, error: UNSAVED });
      hooks.runtimeCall(parts.instance, message.payload);
      return;
    case "results_waiting":
      return hooks.resultsWaiting(parts.instance, message.payload as ChildToParent["results_waiting"]);
    case "fatal":
      parts.logger.error(
        { code: message.payload.code, detail: message.payload.message },
        "instance reported a fatal start-up error",
      );
      parts.startFailures.reportFatal(message.payload);
      return;
    default:
      return;
  }
}

/**
 * The turn's end and its answer are committed together, then routed (outcome-router.ts says when) and the next event
 * delivered: nothing goes on from a turn whose commit the store may still refuse. A refused commit leaves its event
 * unanswered and first again, and stops the child (its memory holds what the store does not) as a store fault: no
 * crash of the event, a restart after a backoff.
 */
function onTurnResult(parts: InstanceParts, child: ChildProcess, payload: ChildToParent["turn_result"]): void {
  const { commit, ...outcome } = payload;
  const entry = parts.events.finish(outcome.eventId, outcome.status === "awaiting_approval");
  if (parts.storeFaults.holdsUnsaved.has(child)) {
    // It holds what the store refused: nothing of this turn is stored; the event (unless refused itself) runs again.
    parts.logger.warn({ eventId: outcome.eventId }, "turn not committed: its child holds what the store refused");
    if (entry?.refused) parts.events.dropRefused(entry);
    else if (entry) parts.events.putBack(entry);
    parts.storeFaults.stop(child);
    return;
  }
  if (!entry) {
    parts.logger.warn({ eventId: outcome.eventId }, "turn_result for an event not in flight; dropped");
    return;
  }
  parts.instance.lastActiveAt = parts.options.clock.now();
  child.unwatch();
  const stored = () => {
    parts.events.turnStored(entry);
    parts.supervisor.healthy();
    parts.deliverNext();
  };
  const write = storedWrite(
    (options) =>
      commitTurn({
        store: parts.options.store,
        ref: parts.ref,
        commit: commit ?? {},
        outcome,
        event: entry.event,
        options,
      }),
    { committed: stored },
  );
  parts.options.hooks.turnResult(parts.instance, entry, outcome, write);
  // The child (and its next event) waits for this commit alone: made now, not at the end of the tick.
  parts.options.store.commitNow();
  write.committed.catch((error: Error) => {
    parts.logger.error(
      { eventId: outcome.eventId, code: describe(error).code, error: error.message },
      "could not commit a turn; its event stays unanswered and the child starts again after a backoff",
    );
    parts.events.putBack(entry);
    parts.storeFaults.stop(child);
  });
}

export function onChildExit(parts: InstanceParts, ended: SupervisedExit): ExitVerdict | void {
  const entry = inFlightAtExit(parts, ended);
  const exceeded = ended.child === undefined ? undefined : releaseLimits(ended.child.pid);
  const onLimit = parts.options.hooks.limitExceeded;
  if (exceeded !== undefined && entry !== undefined && onLimit !== undefined) {
    // A limit, not the event, ended the child: the event is answered with the limit's code, never redelivered.
    parts.logger.warn({ eventId: entry.event.id, code: exceeded.code }, "instance went over a resource limit");
    parts.events.forget(entry);
    onLimit(parts.instance, entry, exceeded);
    return;
  }
  if (ended.how === "crashed" && storeFaultExit(parts, ended)) {
    // The store refused a commit (a full disk): the event did nothing wrong. First again, not counted toward poison.
    parts.logger.warn({ eventId: entry?.event.id, why: ended.why }, "instance stopped on a store fault");
    if (entry) parts.events.putBack(entry);
    return { givenUp: false, storeFaults: parts.storeFaults.inARow.fault(parts.options.clock.now()) };
  }
  if (ended.how !== "crashed") {
    // A turn cut short by the grace period was never answered: it stays first.
    if (entry) parts.events.putBack(entry);
    return;
  }
  parts.logger.warn({ eventId: entry?.event.id, why: ended.why }, "instance.crashed");
  if (entry && parts.events.crashedWith(entry, parts.options.policy().restart, ended.why))
    parts.options.hooks.poisoned(parts.instance, entry);
  if (!ended.beforeReady) return;
  // A child that never became ready (start-failures.ts): once the instance is given up on, its waiting events
  // are answered, and it backs off (crashLoopBackOff) and keeps trying, so a fix recovers it.
  const givenUp = parts.startFailures.failed({
    address: parts.instance.address,
    exit: ended.exit,
    ...(ended.cause ? { cause: ended.cause } : {}),
    policy: parts.options.policy().restart,
  });
  if (givenUp) parts.giveUpWaiting();
  return { givenUp };
}

/**
 * The event the child ended with; one handed over before it was ready never began (not its crash): first again. One
 * whose insert the store refused (handed over before its commit) is gone for good.
 */
function inFlightAtExit(parts: InstanceParts, ended: SupervisedExit): InboxEntry | undefined {
  const entry = parts.events.takeInFlight();
  if (entry?.refused) return void parts.events.dropRefused(entry);
  if (entry === undefined || !ended.beforeReady) return entry;
  parts.events.undeliver(entry);
  return undefined;
}

/** The child ended because the store refused its commit: it said so (its exit code), or we stopped it for that. */
function storeFaultExit(parts: InstanceParts, ended: SupervisedExit): boolean {
  if (ended.exit.code === STORE_FAULT_EXIT_CODE) return true;
  return ended.child !== undefined && parts.storeFaults.stopped.delete(ended.child);
}

/**
 * The answer to a commit or call of a child that holds what the store refused (store-faults.ts): not stored, not run.
 * Its turn ends unsaved and runs again from the store.
 */
const UNSAVED = {
  code: STORE_UNAVAILABLE,
  message: "this turn holds what the store refused; nothing more of it is stored or run until it runs again",
};
