/**
 * One event from outside (the API, a connector), accepted durably: its target checked, the event built, a waiter
 * for its outcome registered (and its progress watched, when asked) before the accept, so no answer is missed; a
 * refused accept (a store fault, or stopping) runs nothing and leaves nobody waiting.
 */
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { SubmitOptions, Submitted } from "./orchestrator-options.ts";
import { outsideEvent } from "./outside-event.ts";
import type { RuntimeEventHub } from "./routing/runtime-event-hub.ts";
import type { OutcomeWaiters } from "./routing/turn-outcomes.ts";
import { submitTarget } from "./submit-checks.ts";
import type { SwarmView } from "./swarm-view.ts";

export function submitEvent(
  host: {
    view: SwarmView;
    clock: Clock;
    ids: IdGenerator;
    waiters: OutcomeWaiters;
    events: RuntimeEventHub;
    accept: (event: AgentEvent) => Promise<void>;
  },
  options: SubmitOptions,
): Submitted {
  const { agent, instanceKey } = submitTarget(host.view, options);
  const now = host.clock.now();
  const event = outsideEvent({ submit: options, id: options.eventId ?? host.ids("evt"), agent, instanceKey, now });
  const outcome = host.waiters.outcome(event.id);
  let accepted: Promise<void>;
  const stopWatching = options.onProgress ? host.events.watchEvent(event, options.onProgress) : undefined;
  if (stopWatching) void outcome.then(stopWatching, stopWatching);
  const forget = () => {
    host.waiters.forget(event.id);
    stopWatching?.();
  };
  try {
    accepted = host.accept(event);
    accepted.catch(forget);
  } catch (error) {
    forget();
    throw error;
  }
  return { eventId: event.id, agent, instanceKey, accepted, outcome };
}
