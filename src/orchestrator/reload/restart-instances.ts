/**
 * The instance side of a reload: the named agents' instances (all when none are named) and the named
 * single instances are drained and, if they were live, started again on the new files, each held until its
 * conversation is cleared when the reload is `fresh` for it (for all, for its agent, or for that instance).
 * Other instances of a named instance's agent are not touched. A fresh instance that has no supervisor
 * (never started by this orchestrator, e.g. only on disk from an earlier run) has its stored conversation
 * cleared, if it has one. Instances of agents that left the swarm are stopped and retired, their inboxes
 * kept on disk.
 */
import { instanceAddress } from "../../protocol/agent-event.ts";
import type { Instance } from "../instances/instance.ts";
import type { ReloadPlan } from "./reload-plan.ts";
import { namesInstance, type InstanceTarget } from "./restart-scope.ts";
import type { SwarmView } from "../swarm-view.ts";

export interface RestartInstancesOptions {
  supervisors: Instance[];
  /** The new swarm view. */
  view: SwarmView;
  /** What restarts and what is cleared (agents: all when undefined, none when empty). */
  plan: ReloadPlan;
  gracePeriodMs: number;
  /** False while the orchestrator shuts down. */
  startAgain: () => boolean;
  /** Clears an instance's conversation in the store; true when it had one. */
  clearConversation: (instance: InstanceTarget) => Promise<boolean>;
  retire: (supervisor: Instance) => void;
}

/** Returns the restarted (or retired, or cleared on disk) instance addresses, sorted. */
export async function restartInstances(options: RestartInstancesOptions): Promise<string[]> {
  const { view, plan } = options;
  const affected = options.supervisors.filter(
    (s) =>
      !view.agents.has(s.agent) ||
      plan.agents === undefined ||
      plan.agents.includes(s.agent) ||
      namesInstance(plan.instances, s),
  );
  const restarted: string[] = [];
  const clears = (s: InstanceTarget): boolean =>
    plan.fresh === true || (plan.freshAgents ?? []).includes(s.agent) || namesInstance(plan.freshInstances, s);
  // The store clears at once (the await is only its sync), so no instance can start on the old conversation.
  for (const target of plan.freshInstances ?? []) {
    if (!view.agents.has(target.agent) || options.supervisors.some((s) => namesInstance([target], s))) continue;
    if (await options.clearConversation(target)) restarted.push(instanceAddress(target.agent, target.instanceKey));
  }
  await Promise.all(
    affected.map(async (s) => {
      const wasLive = s.live;
      const member = view.agents.has(s.agent);
      if (member) s.hold();
      else s.close();
      await s.stop({ reason: "reload", gracePeriodMs: options.gracePeriodMs });
      const fresh = clears(s);
      if (fresh) await options.clearConversation(s);
      if (member) {
        if (wasLive && options.startAgain()) s.ensureStarted();
        s.resume();
      } else {
        // Its unanswered events stay in the store (a later run with the agent back in the swarm resumes them).
        options.retire(s);
      }
      if (wasLive || fresh) restarted.push(s.address);
    }),
  );
  return restarted.sort();
}
