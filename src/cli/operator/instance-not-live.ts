/**
 * Before an operator command changes an instance's stored state (`goondan instance delete|archive`), the instance
 * must not be live in a running orchestrator. When a live orchestrator owns the state root (its `orchestrator.json`,
 * state-root-lock.ts), its API (at the address it recorded, with GOONDAN_API_TOKEN) must confirm the instance is not
 * live; no answer, 401/403 or any other error refuses. The refusal names the one way to clear a live instance.
 */
import { readStateRootLock, type StateRootOwner } from "../../daemon/state-root-lock.ts";
import { apiError, callApi, type ApiTarget } from "./api-client.ts";

type LiveInstance = { agent: string; instanceKey: string; status: string; pid?: number };

const LIVE_STATUSES = new Set(["spawning", "idle", "processing", "draining", "crashed", "crashLoopBackOff"]);

/** The running orchestrator's instances, or why it could not tell (no answer, 401/403, another error). */
async function liveInstances(target: ApiTarget): Promise<{ instances: LiveInstance[] } | { problem: string }> {
  try {
    const response = await callApi({ target, method: "GET", path: "/v1/instances", timeoutMs: 3000 });
    if (response.status === 200)
      return { instances: (response.body as { instances?: LiveInstance[] }).instances ?? [] };
    const error = apiError(response.body);
    const hint =
      response.status === 401 || response.status === 403
        ? target.token
          ? " (GOONDAN_API_TOKEN was refused)"
          : " (set GOONDAN_API_TOKEN)"
        : "";
    return {
      problem: `its API at ${target.baseUrl} answered ${response.status}${error ? ` ${error.code}` : ""}${hint}`,
    };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** Where the owner of the state root listens, with the caller's token. */
function ownerTarget(owner: StateRootOwner, fallback: ApiTarget): ApiTarget | undefined {
  if (owner.port === null) return undefined;
  const host = owner.host === null || owner.host === "0.0.0.0" || owner.host === "::" ? "127.0.0.1" : owner.host;
  return {
    baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${owner.port}`,
    ...(fallback.token ? { token: fallback.token } : {}),
  };
}

/** The one way to clear a live instance's conversation (restart.ts), shell-quoted where needed. */
export const clearCommand = (agent: string, instanceKey: string): string => {
  const quote = (word: string) => (/^[A-Za-z0-9_.:@%+=\/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return `goondan restart --agent ${quote(agent)} --instance ${quote(instanceKey)} --fresh`;
};

/** Undefined when the instance is not live; else why the command must refuse (a line for stderr, without the prefix). */
export async function refusalWhileLive(options: {
  stateRoot: string;
  target: ApiTarget;
  agent: string;
  instanceKey: string;
}): Promise<string | undefined> {
  const { agent, instanceKey } = options;
  const owner = readStateRootLock(options.stateRoot);
  const target = owner === undefined ? options.target : ownerTarget(owner, options.target);
  const answer = target === undefined ? { problem: "it has no HTTP API" } : await liveInstances(target);
  if (owner !== undefined && "problem" in answer) {
    return `E_STATE_ROOT_OWNED: a running orchestrator (pid ${owner.pid}) owns the state root ${options.stateRoot} and could not confirm that ${agent}/${instanceKey} is not live: ${answer.problem}; stop it first, or clear its conversation with: ${clearCommand(agent, instanceKey)}`;
  }
  const live = "instances" in answer ? answer.instances : undefined;
  const running = live?.find(
    (item) =>
      item.agent === agent &&
      item.instanceKey === instanceKey &&
      (LIVE_STATUSES.has(item.status) || item.pid !== undefined),
  );
  if (running)
    return `${agent}/${instanceKey} is running (status ${running.status}) in the orchestrator at ${target?.baseUrl ?? options.target.baseUrl}; stop it first, or clear its conversation with: ${clearCommand(agent, instanceKey)}`;
  return undefined;
}
