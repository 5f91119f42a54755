/**
 * What the runtime router (runtime-router.ts) may do to the swarm, built once by the orchestrator: accept events,
 * look up accepted ones, spawn and list instances, and ask for a restart once the asking turn has ended.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import type { Store, WriteOptions } from "../../store/store.ts";
import type { Instance } from "../instances/instance.ts";
import type { RestartRequester } from "../orchestrator-options.ts";
import type { SwarmView } from "../swarm-view.ts";
import type { OutcomeRouter } from "./outcome-router.ts";
import type { PendingRequests } from "./pending-requests.ts";
import type { RouterHost } from "./runtime-router.ts";

export function createRouterHost(options: {
  view: () => SwarmView;
  clock: Clock;
  ids: IdGenerator;
  pending: PendingRequests;
  store: Store;
  outcomes: OutcomeRouter;
  accept: (event: AgentEvent, options?: WriteOptions) => Promise<void>;
  instance: (agent: string, instanceKey: string) => Instance;
  instances: () => Iterable<Instance>;
  restarts: RestartRequester | undefined;
  /** Resolves once the requester's current turn has ended. */
  afterTurn: (requester: { inFlight: { event: AgentEvent } | undefined }) => Promise<void>;
}): RouterHost {
  return {
    swarm: options.view,
    clock: options.clock,
    ids: options.ids,
    pending: options.pending,
    accept: options.accept,
    ordered: options.store.ordered,
    accepted: (eventId) => options.store.inboxRecord(options.view().instanceKey, eventId),
    replyFromStore: (request, outcome) => options.outcomes.replyFromStore(request, outcome),
    spawn: (agent, instanceKey) => {
      const instance = options.instance(agent, instanceKey);
      instance.ensureStarted();
      return {
        agent,
        instanceKey,
        status: instance.status,
        ...(instance.pid !== undefined ? { pid: instance.pid } : {}),
      };
    },
    list: () =>
      [...options.instances()].map((s) => ({
        agent: s.agent,
        instanceKey: s.instanceKey,
        status: s.status,
        ...(s.live && s.pid !== undefined ? { pid: s.pid } : {}),
      })),
    restart: ({ reason, requester }) => {
      if (!options.restarts)
        return Promise.resolve({
          accepted: false,
          issues: [
            {
              code: "E_RESTART_UNAVAILABLE",
              path: "",
              message: "this orchestrator runs without a restart coordinator",
            },
          ],
        });
      return options.restarts.request({ reason, afterTurn: options.afterTurn(requester) });
    },
  };
}
