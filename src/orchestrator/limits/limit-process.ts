/**
 * Applies an agent's `spec.limits` to its freshly spawned process (docs/limits.md#resource-limits), reading them
 * from the current bundle: the one place the orchestrator's spawn path calls supervision/resource-limits.ts.
 * A limit that cannot be applied is logged, never a reason not to run. Every new conversation in a shared process
 * comes through here, so each agent's limits are looked up once per bundle.
 */
import { selectSwarm, swarmAgents } from "../../config/resolve.ts";
import type { AgentLimits, Bundle } from "../../config/types.ts";
import type { Logger } from "../../shared/logger.ts";
import { applyLimits, hasProcessLimits } from "../../supervision/resource-limits.ts";

type Limits = AgentLimits | undefined;
const limitsByBundle = new WeakMap<Bundle, Map<string, Limits>>();

function agentLimits(bundle: Bundle, swarmName: string | undefined, agent: string): Limits {
  let known = limitsByBundle.get(bundle);
  if (known === undefined) limitsByBundle.set(bundle, (known = new Map()));
  const key = `${swarmName ?? ""}\n${agent}`;
  if (known.has(key)) return known.get(key);
  const swarm = selectSwarm(bundle, swarmName);
  const limits = swarmAgents(bundle, swarm).find((found) => found.metadata.name === agent)?.spec.limits;
  known.set(key, limits);
  return limits;
}

export function limitProcess(options: {
  bundle: Bundle;
  swarm?: string;
  agent: string;
  pid: number;
  logger: Logger;
}): void {
  const limits = agentLimits(options.bundle, options.swarm, options.agent);
  if (!hasProcessLimits(limits)) return;
  const { mechanism, problems } = applyLimits(options.pid, limits, { name: options.agent });
  if (problems.length > 0)
    options.logger.warn(
      { agent: options.agent, pid: options.pid, problems },
      "some resource limits could not be applied",
    );
  else options.logger.debug({ agent: options.agent, pid: options.pid, mechanism }, "resource limits applied");
}
