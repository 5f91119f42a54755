/**
 * `goondan instance list|delete`: the instances the state root's store holds. `list` shows each one's
 * swarm, agent, instanceKey, committed messages and last change; `delete <agent> <instanceKey>`
 * removes its state (conversation, pending results, extension state, runtime events) and its workspace
 * directory, but refuses while a running orchestrator has that instance live: stop it first, or clear it through
 * `goondan restart --agent A --instance K --fresh`.
 * When a live orchestrator owns the state root (its `orchestrator.json`, state-root-lock.ts), deleting
 * needs that orchestrator's API (at the address it recorded, with GOONDAN_API_TOKEN) to confirm the
 * instance is not live; no answer, 401/403 or any other error refuses.
 */
import { rmSync } from "node:fs";
import type { SqliteStore } from "../../store/sqlite/sqlite-store.ts";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { UsageError } from "../../shared/errors.ts";
import { EXIT, type CliCommand, type CliIo } from "../command.ts";
import { listStoredInstances, openStateRootStore, type InstanceInStore } from "../operator/state-root-store.ts";
import { API_FLAGS, apiError, apiTarget, callApi, type ApiTarget } from "../operator/api-client.ts";
import { readStateRootLock, type StateRootOwner } from "../../daemon/state-root-lock.ts";

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd()).join("\n") + "\n";
}

function list(options: { instances: InstanceInStore[]; format: string; io: CliIo; stateRoot: string }): number {
  const { instances, io } = options;
  if (options.format === "json") {
    io.stdout(`${JSON.stringify({ instances: instances.map(({ swarmInstanceKey, agent, instanceKey, messages, updatedAt, dir }) => ({ swarm: swarmInstanceKey, agent, instanceKey, messages, updatedAt, dir })) }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (instances.length === 0) {
    io.stdout(`no instances under ${options.stateRoot}\n`);
    return EXIT.ok;
  }
  const rows = [["SWARM", "AGENT", "INSTANCE", "MESSAGES", "UPDATED"], ...instances.map((item) => [item.swarmInstanceKey, item.agent, item.instanceKey, String(item.messages), item.updatedAt])];
  io.stdout(table(rows));
  return EXIT.ok;
}

type LiveInstance = { agent: string; instanceKey: string; status: string; pid?: number };

/** The running orchestrator's instances, or why it could not tell (no answer, 401/403, another error). */
async function liveInstances(target: ApiTarget): Promise<{ instances: LiveInstance[] } | { problem: string }> {
  try {
    const response = await callApi({ target, method: "GET", path: "/v1/instances", timeoutMs: 3000 });
    if (response.status === 200) return { instances: (response.body as { instances?: LiveInstance[] }).instances ?? [] };
    const error = apiError(response.body);
    const hint = response.status === 401 || response.status === 403 ? (target.token ? " (GOONDAN_API_TOKEN was refused)" : " (set GOONDAN_API_TOKEN)") : "";
    return { problem: `its API at ${target.baseUrl} answered ${response.status}${error ? ` ${error.code}` : ""}${hint}` };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** Where the owner of the state root listens, with the caller's token. */
function ownerTarget(owner: StateRootOwner, fallback: ApiTarget): ApiTarget | undefined {
  if (owner.port === null) return undefined;
  const host = owner.host === null || owner.host === "0.0.0.0" || owner.host === "::" ? "127.0.0.1" : owner.host;
  return { baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${owner.port}`, ...(fallback.token ? { token: fallback.token } : {}) };
}

/** The one way to clear a live instance's conversation (restart.ts), shell-quoted where needed. */
const clearCommand = (agent: string, instanceKey: string): string => {
  const quote = (word: string) => (/^[A-Za-z0-9_.:@%+=\/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return `goondan restart --agent ${quote(agent)} --instance ${quote(instanceKey)} --fresh`;
};

const LIVE_STATUSES = new Set(["spawning", "idle", "processing", "draining", "crashed", "crashLoopBackOff"]);

async function remove(options: { instances: InstanceInStore[]; store: SqliteStore | undefined; positionals: string[]; swarm: string | undefined; target: ApiTarget; stateRoot: string; io: CliIo }): Promise<number> {
  const [agent, instanceKey] = options.positionals;
  if (agent === undefined || instanceKey === undefined) throw new UsageError("E_USAGE_MISSING_ARGUMENT", "instance delete needs <agent> <instanceKey>");
  const { io } = options;
  const matches = options.instances.filter((item) => item.agent === agent && item.instanceKey === instanceKey && (options.swarm === undefined || item.swarmInstanceKey === options.swarm));
  if (matches.length === 0) {
    io.stderr(`goondan instance: no instance ${agent}/${instanceKey}${options.swarm ? ` in swarm ${options.swarm}` : ""} under ${options.stateRoot}\n`);
    return EXIT.failure;
  }
  if (matches.length > 1) {
    throw new UsageError("E_USAGE_AMBIGUOUS", `${agent}/${instanceKey} exists in several swarms (${matches.map((item) => item.swarmInstanceKey).join(", ")}); pass --swarm`);
  }
  const owner = readStateRootLock(options.stateRoot);
  const target = owner === undefined ? options.target : ownerTarget(owner, options.target);
  const answer = target === undefined ? { problem: "it has no HTTP API" } : await liveInstances(target);
  if (owner !== undefined && "problem" in answer) {
    io.stderr(`goondan instance: E_STATE_ROOT_OWNED: a running orchestrator (pid ${owner.pid}) owns the state root ${options.stateRoot} and could not confirm that ${agent}/${instanceKey} is not live: ${answer.problem}; stop it first, or clear its conversation with: ${clearCommand(agent, instanceKey)}\n`);
    return EXIT.failure;
  }
  const live = "instances" in answer ? answer.instances : undefined;
  const running = live?.find((item) => item.agent === agent && item.instanceKey === instanceKey && (LIVE_STATUSES.has(item.status) || item.pid !== undefined));
  if (running) {
    io.stderr(`goondan instance: ${agent}/${instanceKey} is running (status ${running.status}) in the orchestrator at ${target?.baseUrl ?? options.target.baseUrl}; stop it first, or clear its conversation with: ${clearCommand(agent, instanceKey)}\n`);
    return EXIT.failure;
  }
  const [match] = matches as [InstanceInStore];
  await options.store?.deleteInstance({ swarm: match.swarmInstanceKey, agent, instanceKey });
  rmSync(match.dir, { recursive: true, force: true });
  io.stdout(`deleted ${match.swarmInstanceKey}/${agent}/${instanceKey} (${match.dir})\n`);
  return EXIT.ok;
}

export const command: CliCommand = {
  name: "instance",
  summary: "list or delete the instances kept under the state root",
  usage: "goondan instance list [--format text|json] | goondan instance delete <agent> <instanceKey> [--swarm KEY]",
  maxPositionals: 3,
  flags: {
    "state-root": { type: "string", description: "state root (default GOONDAN_STATE_ROOT or ~/.goondan)" },
    swarm: { type: "string", description: "the swarm instanceKey, when an instance name exists in several" },
    format: { type: "string", description: "text (default) or json (list)", choices: ["text", "json"] },
    ...API_FLAGS,
  },
  async run({ flags, positionals, io }) {
    const [action, ...rest] = positionals;
    const stateRoot = typeof flags["state-root"] === "string" ? flags["state-root"] : defaultStateRoot(io.env);
    const swarm = typeof flags.swarm === "string" ? flags.swarm : undefined;
    const store = openStateRootStore(stateRoot);
    try {
      const instances = (await listStoredInstances({ stateRoot, store })).filter((item) => swarm === undefined || item.swarmInstanceKey === swarm);
      if (action === "list") {
        if (rest.length > 0) throw new UsageError("E_USAGE_EXTRA_ARGUMENT", `instance list takes no arguments, got ${JSON.stringify(rest[0])}`);
        return list({ instances, format: typeof flags.format === "string" ? flags.format : "text", io, stateRoot });
      }
      if (action === "delete") return await remove({ instances, store, positionals: rest, swarm, target: apiTarget({ flags, env: io.env }), stateRoot, io });
    } finally {
      await store?.close();
    }
    throw new UsageError("E_USAGE_UNKNOWN_ACTION", `expected 'list' or 'delete', got ${action === undefined ? "nothing" : JSON.stringify(action)}`);
  },
};
