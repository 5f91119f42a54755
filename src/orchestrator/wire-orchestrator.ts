/**
 * The Orchestrator's routing parts, built once and wired to each other: pending requests and their timeouts, the
 * outcome router (answers to waiters, requesters and the approval desk), the approval desk, the process pool, the
 * router host of runtime calls, the hooks every Instance reports to, how a new Instance is made (its child
 * spawned on the current bundle), and the runtime-event retention. The Orchestrator hands in what they read
 * of it (its view, store, clock, instances, accept) as the OrchestratorWiring host.
 */
import type { Bundle } from "../config/types.ts";
import type { Clock } from "../shared/clock.ts";
import { describe } from "../shared/errors.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import type { AgentEvent } from "../protocol/agent-event.ts";
import { ProcessPool } from "../supervision/process-pool.ts";
import type { Store, WriteOptions } from "../store/store.ts";
import { AgentSpawnRequests } from "./agent-spawn-requests.ts";
import { ApprovalDesk } from "./approvals/approval-desk.ts";
import { PermitBroker } from "./limits/permit-broker.ts";
import { limitProcess } from "./limits/limit-process.ts";
import { Instance } from "./instances/instance.ts";
import { resumeTakenOver } from "./instances/resume-unanswered.ts";
import type { InstanceHooks } from "./instances/instance-options.ts";
import type { OrchestratorOptions } from "./orchestrator-options.ts";
import { OutcomeRouter } from "./routing/outcome-router.ts";
import { RuntimeEventRetention } from "./runtime-event-retention.ts";
import { PendingRequests } from "./routing/pending-requests.ts";
import { wakeForResults } from "./routing/results-arrived-event.ts";
import { createRouterHost } from "./routing/router-host.ts";
import type { RuntimeEventHub } from "./routing/runtime-event-hub.ts";
import { handleRuntimeCall, type RouterHost } from "./routing/runtime-router.ts";
import type { OutcomeWaiters } from "./routing/turn-outcomes.ts";
import type { SwarmView } from "./swarm-view.ts";

/** What the wired parts read of the Orchestrator. */
export interface OrchestratorWiring {
  options: OrchestratorOptions;
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  waiters: OutcomeWaiters;
  events: RuntimeEventHub;
  view: () => SwarmView;
  bundle: () => Bundle;
  accepting: () => boolean;
  gracePeriodMs: () => number;
  accept: (event: AgentEvent, options?: WriteOptions) => Promise<void>;
  instance: (agent: string, instanceKey: string) => Instance;
  existing: (address: string) => Instance | undefined;
  instances: () => Iterable<Instance>;
}

export function wireOrchestrator(host: OrchestratorWiring): {
  pending: PendingRequests;
  outcomes: OutcomeRouter;
  approvals: ApprovalDesk;
  pool: ProcessPool;
  router: RouterHost;
  permits: PermitBroker;
  hooks: InstanceHooks;
  newInstance: (agent: string, instanceKey: string) => Instance;
  renewProcesses: (agents: readonly string[] | undefined) => void;
  retention: RuntimeEventRetention;
} {
  const pending = new PendingRequests({
    clock: host.clock,
    onTimeout: (request) => outcomes.requestTimedOut(request),
  });
  const outcomes = new OutcomeRouter({
    waiters: host.waiters,
    pending,
    store: host.store,
    swarm: () => host.view().instanceKey,
    logger: host.logger,
    requester: (address) => {
      const slash = address.indexOf("/");
      return host.instance(address.slice(0, slash), address.slice(slash + 1));
    },
    callee: (address) => host.existing(address),
    turnStopped: (event, outcome) => approvals.turnStopped(event, outcome),
    ...(host.options.placement ? { placement: host.options.placement } : {}),
  });
  const approvals = new ApprovalDesk({
    store: host.store,
    swarm: () => host.view().instanceKey,
    clock: host.clock,
    logger: host.logger,
    waiters: host.waiters,
    pending,
    instance: (agent, key) => host.instance(agent, key),
    existing: (address) => host.existing(address),
    publish: (events) => host.events.publish(events),
    watchEvent: (event, listener) => host.events.watchEvent(event, listener),
    ...(host.options.placement?.signals ? { signals: host.options.placement.signals } : {}),
  });
  host.options.placement?.signals?.attach(approvals);
  host.options.placement?.attachTakeover?.({
    taken: async (agent, instanceKey) =>
      host.view().agents.has(agent)
        ? resumeTakenOver({
            store: host.store,
            swarm: host.view().instanceKey,
            agent,
            instanceKey,
            instance: () => host.instance(agent, instanceKey),
            arm: () => approvals.armInstance(agent, instanceKey),
          })
        : undefined,
  });
  const pool = new ProcessPool({
    maxInstances: () => host.view().policy.lifecycle.maxInstances,
    gracePeriodMs: () => host.gracePeriodMs(),
    ...(host.options.maxConcurrentSpawns !== undefined
      ? { maxConcurrentSpawns: host.options.maxConcurrentSpawns }
      : {}),
  });
  const router = createRouterHost({
    view: () => host.view(),
    clock: host.clock,
    ids: host.ids,
    pending,
    store: host.store,
    outcomes,
    accept: (event, options) => host.accept(event, options),
    instance: (agent, instanceKey) => host.instance(agent, instanceKey),
    instances: () => host.instances(),
    restarts: host.options.restarts,
    afterTurn: (requester) =>
      requester.inFlight ? host.waiters.ended(requester.inFlight.event.id) : Promise.resolve(),
  });
  const permits = new PermitBroker({
    store: host.store,
    clock: host.clock,
    logger: host.logger,
    bundle: () => host.bundle(),
    swarmName: () => host.view().name,
    swarmKey: () => host.view().instanceKey,
  });
  const hooks: InstanceHooks = {
    turnResult: (instance, entry, result, write) => outcomes.turnEnded(instance, entry, result, write),
    poisoned: (instance, entry, cause) => outcomes.givenUp(instance, entry, cause),
    limitExceeded: (instance, entry, error) => outcomes.limitExceeded(instance, entry, error),
    spawned: (instance, pid) =>
      limitProcess({ bundle: host.bundle(), swarm: host.view().name, agent: instance.agent, pid, logger: host.logger }),
    runtimeCall: (instance, call) =>
      PermitBroker.handles(call)
        ? void permits.handle(instance, call)
        : void handleRuntimeCall({ host: router, requester: instance, call }).catch((error: unknown) =>
            host.logger.error({ error: describe(error) }, "runtime call failed"),
          ),
    resultsWaiting: (instance, { count }) =>
      wakeForResults({
        instance,
        count,
        accepting: host.accepting(),
        id: () => host.ids("evt"),
        now: host.clock.now(),
        accept: (event, options) => host.accept(event, options),
        logger: host.logger,
      }),
    ...host.events.instanceHooks(),
  };
  // Every instance's child is spawned on the current bundle, and reports to the hooks above.
  const spawnRequests = new AgentSpawnRequests({
    stateRoot: host.options.stateRoot,
    env: host.options.env ?? process.env,
    childEnv: host.options.childEnv ?? {},
    logger: host.logger,
  });
  const newInstance = (agent: string, instanceKey: string): Instance =>
    new Instance({
      swarm: host.view().instanceKey,
      agent,
      instanceKey,
      store: host.store,
      spawner: host.options.spawner,
      spawnRequest: () =>
        spawnRequests.request({
          bundle: host.bundle(),
          swarm: host.view().name,
          agent,
          instanceKey,
          idleSeconds: host.view().policy.lifecycle.idleSeconds,
        }),
      slotGroup: () => spawnRequests.slotGroup(host.bundle(), agent),
      clock: host.clock,
      policy: () => host.view().policy,
      pool: pool,
      hooks: hooks,
      logger: host.logger,
      ...(host.options.readyTimeoutMs !== undefined ? { readyTimeoutMs: host.options.readyTimeoutMs } : {}),
    });
  const renewProcesses = (agents: readonly string[] | undefined): void =>
    spawnRequests.renew(agents, host.view().agents.keys());
  const retention = new RuntimeEventRetention({
    store: host.store,
    swarm: () => host.view().instanceKey,
    policy: () => host.view().policy.retention?.runtimeEvents,
    clock: host.clock,
    logger: host.logger,
  });
  return { pending, outcomes, approvals, pool, router, permits, hooks, newInstance, renewProcesses, retention };
}
