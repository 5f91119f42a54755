/**
 * `goondan instance list|archive|delete`: the instances the state root's store holds. `list` shows each one's
 * swarm, agent, instanceKey, committed messages and last change; `archive <agent> <instanceKey> [--keep N]` moves
 * all but its last N messages to a file beside it (archive-conversation.ts); `delete <agent> <instanceKey>` removes
 * its state (conversation, pending results, extension state, runtime events) and its workspace directory. Both
 * refuse while a running orchestrator has that instance live (instance-not-live.ts). `list --port N` (or `--host`)
 * lists a running orchestrator's instances through its API instead (`GET /v1/instances`): with their status, and on
 * a node of a cluster every node's, with a NODE column, saying on stderr which nodes did not answer.
 */
import { rmSync } from "node:fs";
import type { ClusterNodeMark, SqliteStore } from "../../store/sqlite/index.ts";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { UsageError } from "../../shared/errors.ts";
import { EXIT, type CliCommand, type CliIo } from "../command.ts";
import { listStoredInstances, openStateRootStore, type InstanceInStore } from "../operator/state-root-store.ts";
import { textTable } from "../../shared/text-table.ts";
import { API_FLAGS, apiError, apiTarget, callApi, unansweredNotice, type ApiTarget } from "../operator/api-client.ts";
import { answerWaitingEvents } from "../operator/answer-waiting-events.ts";
import { archiveConversation } from "../operator/archive-conversation.ts";
import { clearCommand, refusalWhileLive } from "../operator/instance-not-live.ts";

function table(rows: string[][]): string {
  const [header = [], ...body] = rows;
  return textTable(header, body);
}

function list(options: { instances: InstanceInStore[]; format: string; io: CliIo; stateRoot: string }): number {
  const { instances, io } = options;
  if (options.format === "json") {
    io.stdout(
      `${JSON.stringify({ instances: instances.map(({ swarmInstanceKey, agent, instanceKey, messages, updatedAt, dir }) => ({ swarm: swarmInstanceKey, agent, instanceKey, messages, updatedAt, dir })) }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  if (instances.length === 0) {
    io.stdout(`no instances under ${options.stateRoot}\n`);
    return EXIT.ok;
  }
  const rows = [
    ["SWARM", "AGENT", "INSTANCE", "MESSAGES", "UPDATED"],
    ...instances.map((item) => [
      item.swarmInstanceKey,
      item.agent,
      item.instanceKey,
      String(item.messages),
      item.updatedAt,
    ]),
  ];
  io.stdout(table(rows));
  return EXIT.ok;
}

interface ApiInstanceRow {
  node?: string;
  agent: string;
  instanceKey: string;
  status: string;
  messages?: number;
  updatedAt?: number;
}

/** `list` through a running orchestrator's API: its instance table (every node's, on a cluster node). */
async function listThroughApi(options: { target: ApiTarget; format: string; io: CliIo }): Promise<number> {
  const { io } = options;
  const response = await callApi({ target: options.target, method: "GET", path: "/v1/instances" });
  const body = response.body as
    | { instances?: ApiInstanceRow[]; unanswered?: Array<{ node: string; status: string }> }
    | undefined;
  if (response.status !== 200 || !Array.isArray(body?.instances)) {
    const error = apiError(response.body);
    io.stderr(`goondan instance: ${error?.code ?? response.status}: ${error?.message ?? "unexpected answer"}\n`);
    return EXIT.failure;
  }
  const notice = unansweredNotice(body.unanswered ?? [], "their instances are");
  if (notice !== undefined) io.stderr(`goondan instance: ${notice}\n`);
  if (options.format === "json") {
    io.stdout(`${JSON.stringify(body, null, 2)}\n`);
    return EXIT.ok;
  }
  if (body.instances.length === 0) {
    io.stdout(`no instances at ${options.target.baseUrl}\n`);
    return EXIT.ok;
  }
  const clustered = body.unanswered !== undefined || body.instances.some((row) => row.node !== undefined);
  const header = [...(clustered ? ["NODE"] : []), "AGENT", "INSTANCE", "STATUS", "MESSAGES", "UPDATED"];
  const rows = body.instances.map((row) => [
    ...(clustered ? [row.node ?? "-"] : []),
    row.agent,
    row.instanceKey,
    row.status,
    String(row.messages ?? 0),
    row.updatedAt === undefined ? "-" : new Date(row.updatedAt).toISOString(),
  ]);
  io.stdout(table([header, ...rows]));
  return EXIT.ok;
}

/** The one stored instance the arguments name, or why there is none (exit 1) or several (a usage error). */
function stored(options: {
  instances: InstanceInStore[];
  positionals: string[];
  swarm: string | undefined;
  stateRoot: string;
  action: string;
  io: CliIo;
}): InstanceInStore | undefined {
  const [agent, instanceKey] = options.positionals;
  if (agent === undefined || instanceKey === undefined)
    throw new UsageError("E_USAGE_MISSING_ARGUMENT", `instance ${options.action} needs <agent> <instanceKey>`);
  const matches = options.instances.filter(
    (item) =>
      item.agent === agent &&
      item.instanceKey === instanceKey &&
      (options.swarm === undefined || item.swarmInstanceKey === options.swarm),
  );
  if (matches.length > 1)
    throw new UsageError(
      "E_USAGE_AMBIGUOUS",
      `${agent}/${instanceKey} exists in several swarms (${matches.map((item) => item.swarmInstanceKey).join(", ")}); pass --swarm`,
    );
  if (matches.length === 0)
    options.io.stderr(
      `goondan instance: no instance ${agent}/${instanceKey}${options.swarm ? ` in swarm ${options.swarm}` : ""} under ${options.stateRoot}\n`,
    );
  return matches[0];
}

type ChangeOptions = {
  instances: InstanceInStore[];
  store: SqliteStore | undefined;
  positionals: string[];
  swarm: string | undefined;
  target: ApiTarget;
  stateRoot: string;
  io: CliIo;
  keep: number;
};

async function change(action: "delete" | "archive", options: ChangeOptions): Promise<number> {
  const { io } = options;
  const match = stored({ ...options, action });
  if (match === undefined || options.store === undefined) return EXIT.failure;
  const { agent, instanceKey } = match;
  const mark = options.store.clusterNodeMark();
  if (mark !== undefined) {
    io.stderr(
      `goondan instance: ${clusterRefusal({ action, agent, instanceKey, stateRoot: options.stateRoot, mark })}\n`,
    );
    return EXIT.failure;
  }
  const refusal = await refusalWhileLive({ stateRoot: options.stateRoot, target: options.target, agent, instanceKey });
  if (refusal !== undefined) {
    io.stderr(`goondan instance: ${refusal}\n`);
    return EXIT.failure;
  }
  const ref = { swarm: match.swarmInstanceKey, agent, instanceKey };
  if (action === "archive") {
    const result = await archiveConversation({ store: options.store, ref, dir: match.dir, keep: options.keep });
    io.stdout(
      result.file === undefined
        ? `nothing to archive: ${match.swarmInstanceKey}/${agent}/${instanceKey} has ${result.kept} messages\n`
        : `archived ${result.archived} messages of ${match.swarmInstanceKey}/${agent}/${instanceKey} to ${result.file}; ${result.kept} kept\n`,
    );
    return EXIT.ok;
  }
  const waiting = await answerWaitingEvents({ store: options.store, ref });
  await options.store.deleteInstance(ref);
  rmSync(match.dir, { recursive: true, force: true });
  io.stdout(`deleted ${match.swarmInstanceKey}/${agent}/${instanceKey} (${match.dir})\n`);
  if (waiting.answered + waiting.denied > 0)
    io.stdout(
      `answered ${waiting.answered} waiting event(s) E_INSTANCE_DELETED; denied ${waiting.denied} pending approval(s)\n`,
    );
  return EXIT.ok;
}

/** The code of the refusal below (docs/error-codes.md). */
const CLUSTER_STATE = "E_INSTANCE_CLUSTER_STATE";

/** Why an instance of a cluster node's state root is not changed here: the cluster's state log would bring it back. */
function clusterRefusal(options: {
  action: string;
  agent: string;
  instanceKey: string;
  stateRoot: string;
  mark: ClusterNodeMark;
}): string {
  const { action, agent, instanceKey, mark } = options;
  return `${CLUSTER_STATE}: ${options.stateRoot} is the state root of cluster node ${mark.node} (swarm ${mark.swarm}, since ${mark.since}): ${agent}/${instanceKey}'s state lives in the cluster's JetStream state log, and the node that takes it next replays it from there, so a local ${action} would not last. Clear its conversation cluster-wide through a running node: ${clearCommand(agent, instanceKey)} --port N`;
}

export const command: CliCommand = {
  name: "instance",
  summary: "list, archive or delete the instances kept under the state root",
  usage:
    "goondan instance list [--format text|json] [--port N --host H] | goondan instance archive <agent> <instanceKey> [--keep N] [--swarm KEY] | goondan instance delete <agent> <instanceKey> [--swarm KEY]",
  maxPositionals: 3,
  flags: {
    "state-root": { type: "string", description: "state root (default GOONDAN_STATE_ROOT or ~/.goondan)" },
    swarm: { type: "string", description: "the swarm instanceKey, when an instance name exists in several" },
    format: { type: "string", description: "text (default) or json (list)", choices: ["text", "json"] },
    keep: { type: "number", description: "archive: the last N messages stay in the conversation (default 20)" },
    ...API_FLAGS,
  },
  async run({ flags, positionals, io }) {
    const [action, ...rest] = positionals;
    const stateRoot = typeof flags["state-root"] === "string" ? flags["state-root"] : defaultStateRoot(io.env);
    const swarm = typeof flags.swarm === "string" ? flags.swarm : undefined;
    if (action === "list" && (flags.port !== undefined || flags.host !== undefined)) {
      if (rest.length > 0)
        throw new UsageError(
          "E_USAGE_EXTRA_ARGUMENT",
          `instance list takes no arguments, got ${JSON.stringify(rest[0])}`,
        );
      return listThroughApi({
        target: apiTarget({ flags, env: io.env }),
        format: typeof flags.format === "string" ? flags.format : "text",
        io,
      });
    }
    const store = openStateRootStore(stateRoot);
    try {
      const instances = (await listStoredInstances({ stateRoot, store })).filter(
        (item) => swarm === undefined || item.swarmInstanceKey === swarm,
      );
      if (action === "list") {
        if (rest.length > 0)
          throw new UsageError(
            "E_USAGE_EXTRA_ARGUMENT",
            `instance list takes no arguments, got ${JSON.stringify(rest[0])}`,
          );
        return list({ instances, format: typeof flags.format === "string" ? flags.format : "text", io, stateRoot });
      }
      if (action === "delete" || action === "archive") {
        const keep = typeof flags.keep === "number" ? flags.keep : 20;
        if (!Number.isInteger(keep) || keep < 0)
          throw new UsageError("E_USAGE_BAD_VALUE", `--keep expects a whole number of messages, got ${keep}`);
        return await change(action, {
          instances,
          store,
          positionals: rest,
          swarm,
          target: apiTarget({ flags, env: io.env }),
          stateRoot,
          io,
          keep,
        });
      }
    } finally {
      await store?.close();
    }
    throw new UsageError(
      "E_USAGE_UNKNOWN_ACTION",
      `expected 'list', 'archive' or 'delete', got ${action === undefined ? "nothing" : JSON.stringify(action)}`,
    );
  },
};
