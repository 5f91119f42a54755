/**
 * The instance side of a reload: the named agents' instances (all when none are named) are drained and,
 * if they were live, started again on the new files, each held until its conversation is cleared when the
 * reload is `fresh` for it. Instances of agents that left the swarm are stopped and retired, their inboxes kept
 * on disk.
 */
import type { InstancePaths } from "../shared/state-paths.ts";
import { clearConversation } from "./clear-conversation.ts";
import type { InstanceSupervisor } from "./instance-supervisor.ts";
import type { SwarmView } from "./swarm-view.ts";

export interface RestartInstancesOptions {
  supervisors: InstanceSupervisor[];
  /** The new swarm view. */
  view: SwarmView;
  /** Agents to restart; all when undefined, none (policy only) when empty. */
  agents: string[] | undefined;
  /** Clear every restarted instance's conversation. */
  fresh: boolean;
  /** Clear only these agents' instances' conversations. Default: none. */
  freshAgents?: readonly string[];
  gracePeriodMs: number;
  /** False while the orchestrator shuts down. */
  startAgain: () => boolean;
  instancePaths: (supervisor: InstanceSupervisor) => InstancePaths;
  retire: (supervisor: InstanceSupervisor) => void;
}

/** Returns the restarted (or retired) instance addresses, sorted. */
export async function restartInstances(options: RestartInstancesOptions): Promise<string[]> {
  const { view } = options;
  const affected = options.supervisors.filter((s) => !view.agents.has(s.agent) || options.agents === undefined || options.agents.includes(s.agent));
  const restarted: string[] = [];
  const clears = (s: InstanceSupervisor): boolean => options.fresh || (options.freshAgents ?? []).includes(s.agent);
  await Promise.all(
    affected.map(async (s) => {
      const wasLive = s.live;
      const member = view.agents.has(s.agent);
      if (member) s.hold();
      else s.close();
      await s.stop({ reason: "reload", gracePeriodMs: options.gracePeriodMs });
      const fresh = clears(s);
      if (fresh) clearConversation(options.instancePaths(s));
      if (member) {
        if (wasLive && options.startAgain()) s.ensureStarted();
        s.resume();
      } else {
        // Its inbox stays on disk (a later run with the agent back in the swarm resumes it).
        options.retire(s);
        s.inbox.close();
      }
      if (wasLive || fresh) restarted.push(s.address);
    }),
  );
  return restarted.sort();
}
