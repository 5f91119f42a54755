/**
 * What the orchestrator checks before it accepts an event: the target agent is in the swarm, the metadata is not
 * nested deeper than any input may be (MAX_JSON_DEPTH), and the orchestrator still accepts events at all. Each
 * refusal is a caller's coded error, thrown before anything is stored.
 */
import { jsonValueDepth, MAX_JSON_DEPTH } from "../shared/json-depth.ts";
import { UsageError } from "../shared/errors.ts";
import type { SubmitOptions } from "./orchestrator-options.ts";
import type { SwarmView } from "./swarm-view.ts";

/** The agent and instance an event from outside goes to (the swarm's defaults), once it passed the checks. */
export function submitTarget(view: SwarmView, options: SubmitOptions): { agent: string; instanceKey: string } {
  const agent = options.agent ?? view.entryAgent;
  if (!view.agents.has(agent))
    throw new UsageError(
      "E_AGENT_NOT_FOUND",
      `agent ${JSON.stringify(agent)} is not in swarm ${view.name}; members: ${[...view.agents.keys()].join(", ")}`,
    );
  if (options.metadata !== undefined && jsonValueDepth(options.metadata) > MAX_JSON_DEPTH)
    throw new UsageError("E_EVENT_TOO_DEEP", `event metadata nests more than ${MAX_JSON_DEPTH} deep`, {
      suggestion: `flatten the metadata; at most ${MAX_JSON_DEPTH} levels of objects and arrays are accepted`,
    });
  return { agent, instanceKey: options.instanceKey ?? view.instanceKey };
}

/** Throws E_ORCHESTRATOR_STOPPING unless the orchestrator still accepts events. */
export function refuseWhileStopping(accepting: boolean): void {
  if (!accepting)
    throw new UsageError("E_ORCHESTRATOR_STOPPING", "the orchestrator is shutting down and accepts no new events");
}
