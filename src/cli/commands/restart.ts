/**
 * `goondan restart [--agent NAME [--instance KEY]] [--fresh]`: asks the running orchestrator
 * (`POST /v1/restart`) to reload the bundle on disk and restart every agent's instances, only NAME's, or
 * only NAME's instance KEY (the other instances of NAME keep running untouched); `--fresh` also clears the
 * restarted instances' conversations (with `--instance`, only that one). `--instance` without `--agent` is a
 * usage error (exit 2). The orchestrator validates first: an invalid bundle is printed issue by issue
 * (exit 3) and the running swarm is left as it is; an agent not in the swarm is refused with the swarm's
 * agents named (exit 1). An instance key the agent does not know is accepted (there is nothing to restart or
 * clear) with a note on stderr naming the agent's known instances, so a typo shows. Sent to a node of a cluster, the
 * restart is announced to every node, each reloading its own copy of the bundle (docs/cluster.md).
 */
import { UsageError } from "../../shared/errors.ts";
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiError, apiTarget, callApi } from "../operator/api-client.ts";

interface RestartBody {
  accepted?: boolean;
  issues?: { code: string; path: string; message: string }[];
  instance?: { known?: boolean; agentInstances?: string[] };
}

export const command: CliCommand = {
  name: "restart",
  summary: "reload the bundle and restart agents in the running orchestrator (in a cluster: on every node)",
  usage: "goondan restart [--agent NAME [--instance KEY]] [--fresh] [--port N] [--host HOST]",
  maxPositionals: 0,
  flags: {
    agent: { type: "string", short: "a", description: "restart only this agent's instances" },
    instance: {
      type: "string",
      description: "with --agent: restart only this instanceKey; the agent's other instances keep running",
    },
    fresh: {
      type: "boolean",
      description: "clear the restarted instances' conversations (with --instance, only that one)",
    },
    ...API_FLAGS,
  },
  async run({ flags, io }) {
    const agent = typeof flags.agent === "string" ? flags.agent : undefined;
    const instanceKey = typeof flags.instance === "string" ? flags.instance : undefined;
    if (instanceKey !== undefined && agent === undefined)
      throw new UsageError(
        "E_USAGE_INSTANCE_WITHOUT_AGENT",
        `--instance ${JSON.stringify(instanceKey)} needs --agent: an instance key belongs to one agent`,
      );
    if (instanceKey === "")
      throw new UsageError("E_USAGE_BAD_VALUE", '--instance expects a non-empty instanceKey, got ""');
    const fresh = flags.fresh === true;
    const target = apiTarget({ flags, env: io.env });
    const body = {
      ...(agent ? { agent } : {}),
      ...(instanceKey !== undefined ? { instanceKey } : {}),
      ...(fresh ? { fresh: true } : {}),
    };
    const response = await callApi({ target, method: "POST", path: "/v1/restart", body });
    const answer = (response.body ?? {}) as RestartBody;
    if (response.status >= 200 && response.status < 300 && answer.accepted !== false) {
      io.stdout(`restart accepted: ${describe({ agent, instanceKey, fresh })}\n`);
      if (instanceKey !== undefined && answer.instance?.known === false) {
        const others = answer.instance.agentInstances ?? [];
        io.stderr(
          `note: agent ${agent} has no instance ${instanceKey} running or stored, so there is nothing to restart or clear; its instances: ${others.length > 0 ? others.join(", ") : "none"}\n`,
        );
      }
      return EXIT.ok;
    }
    if (Array.isArray(answer.issues) && answer.issues.length > 0) {
      io.stderr(`restart refused: the bundle on disk is invalid; the running swarm is unchanged\n`);
      for (const issue of answer.issues) io.stderr(`  ${issue.path}: ${issue.code} ${issue.message}\n`);
      return EXIT.configInvalid;
    }
    const error = apiError(response.body);
    if (error?.code === "E_AGENT_NOT_FOUND") {
      io.stderr(`restart refused: ${error.message}\n`);
      return EXIT.failure;
    }
    io.stderr(`restart failed: HTTP ${response.status}${error ? ` ${error.code}: ${error.message}` : ""}\n`);
    return response.status === 401 || response.status === 403 ? EXIT.usage : EXIT.failure;
  },
};

/** "all agents", "agent a with fresh conversations", "agent a instance k with a fresh conversation". */
function describe(options: { agent: string | undefined; instanceKey: string | undefined; fresh: boolean }): string {
  if (options.agent === undefined) return `all agents${options.fresh ? " with fresh conversations" : ""}`;
  if (options.instanceKey === undefined)
    return `agent ${options.agent}${options.fresh ? " with fresh conversations" : ""}`;
  return `agent ${options.agent} instance ${options.instanceKey}${options.fresh ? " with a fresh conversation" : ""}`;
}
