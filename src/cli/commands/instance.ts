/**
 * `goondan instance list|delete`: the instances kept under the state root. `list` shows each one's
 * swarm, agent, instanceKey, committed messages and last change; `delete <agent> <instanceKey>`
 * removes its files (conversation, workdir, runtime events), but refuses while a running
 * orchestrator has that instance live: stop it first, or clear it through `goondan restart --fresh`.
 */
import { rmSync } from "node:fs";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { UsageError } from "../../shared/errors.ts";
import { EXIT, type CliCommand, type CliIo } from "../command.ts";
import { listInstancesOnDisk, type InstanceOnDisk } from "../operator/instances-on-disk.ts";
import { API_FLAGS, apiTarget, callApi, type ApiTarget } from "../operator/api-client.ts";

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd()).join("\n") + "\n";
}

function list(options: { instances: InstanceOnDisk[]; format: string; io: CliIo; stateRoot: string }): number {
  const { instances, io } = options;
  if (options.format === "json") {
    io.stdout(`${JSON.stringify({ instances: instances.map(({ swarmInstanceKey, agent, instanceKey, messages, updatedAt, dir }) => ({ swarm: swarmInstanceKey, agent, instanceKey, messages, updatedAt: updatedAt ?? null, dir })) }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (instances.length === 0) {
    io.stdout(`no instances under ${options.stateRoot}\n`);
    return EXIT.ok;
  }
  const rows = [["SWARM", "AGENT", "INSTANCE", "MESSAGES", "UPDATED"], ...instances.map((item) => [item.swarmInstanceKey, item.agent, item.instanceKey, String(item.messages), item.updatedAt ?? "-"])];
  io.stdout(table(rows));
  return EXIT.ok;
}

/** Live instances of the running orchestrator, or undefined when none answers. */
async function liveInstances(target: ApiTarget): Promise<{ agent: string; instanceKey: string; status: string; pid?: number }[] | undefined> {
  try {
    const response = await callApi({ target, method: "GET", path: "/v1/instances", timeoutMs: 3000 });
    if (response.status !== 200) return undefined;
    const body = response.body as { instances?: { agent: string; instanceKey: string; status: string; pid?: number }[] };
    return body.instances ?? [];
  } catch {
    return undefined;
  }
}

const LIVE_STATUSES = new Set(["spawning", "idle", "processing", "draining", "crashed", "crashLoopBackOff"]);

async function remove(options: { instances: InstanceOnDisk[]; positionals: string[]; swarm: string | undefined; target: ApiTarget; io: CliIo }): Promise<number> {
  const [agent, instanceKey] = options.positionals;
  if (agent === undefined || instanceKey === undefined) throw new UsageError("E_USAGE_MISSING_ARGUMENT", "instance delete needs <agent> <instanceKey>");
  const { io } = options;
  const matches = options.instances.filter((item) => item.agent === agent && item.instanceKey === instanceKey && (options.swarm === undefined || item.swarmInstanceKey === options.swarm));
  if (matches.length === 0) {
    io.stderr(`goondan instance: no instance ${agent}/${instanceKey}${options.swarm ? ` in swarm ${options.swarm}` : ""} on disk\n`);
    return EXIT.failure;
  }
  if (matches.length > 1) {
    throw new UsageError("E_USAGE_AMBIGUOUS", `${agent}/${instanceKey} exists in several swarms (${matches.map((item) => item.swarmInstanceKey).join(", ")}); pass --swarm`);
  }
  const live = await liveInstances(options.target);
  const running = live?.find((item) => item.agent === agent && item.instanceKey === instanceKey && (LIVE_STATUSES.has(item.status) || item.pid !== undefined));
  if (running) {
    io.stderr(`goondan instance: ${agent}/${instanceKey} is running (status ${running.status}) in the orchestrator at ${options.target.baseUrl}; stop it first, or clear its conversation with 'goondan restart --agent ${agent} --fresh'\n`);
    return EXIT.failure;
  }
  const [match] = matches as [InstanceOnDisk];
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
    const instances = listInstancesOnDisk({ stateRoot }).filter((item) => swarm === undefined || item.swarmInstanceKey === swarm);
    if (action === "list") {
      if (rest.length > 0) throw new UsageError("E_USAGE_EXTRA_ARGUMENT", `instance list takes no arguments, got ${JSON.stringify(rest[0])}`);
      return list({ instances, format: typeof flags.format === "string" ? flags.format : "text", io, stateRoot });
    }
    if (action === "delete") return remove({ instances, positionals: rest, swarm, target: apiTarget({ flags, env: io.env }), io });
    throw new UsageError("E_USAGE_UNKNOWN_ACTION", `expected 'list' or 'delete', got ${action === undefined ? "nothing" : JSON.stringify(action)}`);
  },
};
