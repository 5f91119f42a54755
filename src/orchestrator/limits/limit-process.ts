/**
 * Applies an agent's `spec.limits` to its freshly spawned process (docs/limits.md#resource-limits), reading them
 * from the current bundle: the one place the orchestrator's spawn path calls supervision/resource-limits.ts.
 * A limit that cannot be applied is logged, never a reason not to run.
 */
import { selectSwarm, swarmAgents } from "../../config/resolve.ts";
import type { Bundle } from "../../config/types.ts";
import type { Logger } from "../../shared/logger.ts";
import { applyLimits, hasProcessLimits } from "../../supervision/resource-limits.ts";

export function limitProcess(options: {
  bundle: Bundle;
  swarm?: string;
  agent: string;
  pid: number;
  logger: Logger;
}): void {
  const swarm = selectSwarm(options.bundle, options.swarm);
  const limits = swarmAgents(options.bundle, swarm).find((agent) => agent.metadata.name === options.agent)?.spec.limits;
  if (!hasProcessLimits(limits)) return;
  const { mechanism, problems } = applyLimits(options.pid, limits, { name: options.agent });
  if (problems.length > 0)
    options.logger.warn(
      { agent: options.agent, pid: options.pid, problems },
      "some resource limits could not be applied",
    );
  else options.logger.debug({ agent: options.agent, pid: options.pid, mechanism }, "resource limits applied");
}
