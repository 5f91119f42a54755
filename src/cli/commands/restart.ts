/**
 * `goondan restart [--agent NAME] [--fresh]`: asks the running orchestrator (`POST /v1/restart`) to
 * reload the bundle on disk and restart every agent's instances, or only NAME's; `--fresh` also clears
 * the restarted instances' conversations. The orchestrator validates first: an invalid bundle is
 * printed issue by issue (exit 3) and the running swarm is left as it is; an agent not in the swarm is
 * refused with the swarm's agents named (exit 1).
 */
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiError, apiTarget, callApi } from "../operator/api-client.ts";

interface RestartBody {
  accepted?: boolean;
  issues?: { code: string; path: string; message: string }[];
}

export const command: CliCommand = {
  name: "restart",
  summary: "reload the bundle and restart agents in the running orchestrator",
  usage: "goondan restart [--agent NAME] [--fresh] [--port N] [--host HOST]",
  maxPositionals: 0,
  flags: {
    agent: { type: "string", description: "restart only this agent's instances" },
    fresh: { type: "boolean", description: "clear the restarted instances' conversations" },
    ...API_FLAGS,
  },
  async run({ flags, io }) {
    const target = apiTarget({ flags, env: io.env });
    const agent = typeof flags.agent === "string" ? flags.agent : undefined;
    const response = await callApi({ target, method: "POST", path: "/v1/restart", body: { ...(agent ? { agent } : {}), ...(flags.fresh === true ? { fresh: true } : {}) } });
    const body = (response.body ?? {}) as RestartBody;
    const what = `${agent ? `agent ${agent}` : "all agents"}${flags.fresh === true ? " with fresh conversations" : ""}`;
    if (response.status >= 200 && response.status < 300 && body.accepted !== false) {
      io.stdout(`restart accepted: ${what}\n`);
      return EXIT.ok;
    }
    if (Array.isArray(body.issues) && body.issues.length > 0) {
      io.stderr(`restart refused: the bundle on disk is invalid; the running swarm is unchanged\n`);
      for (const issue of body.issues) io.stderr(`  ${issue.path}: ${issue.code} ${issue.message}\n`);
      return EXIT.configInvalid;
    }
    const error = apiError(response.body);
    if (error?.code === "AGENT_NOT_FOUND") {
      io.stderr(`restart refused: ${error.message}\n`);
      return EXIT.failure;
    }
    io.stderr(`restart failed: HTTP ${response.status}${error ? ` ${error.code}: ${error.message}` : ""}\n`);
    return response.status === 401 || response.status === 403 ? EXIT.usage : EXIT.failure;
  },
};
