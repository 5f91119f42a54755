/**
 * `POST /v1/restart` `{agent?, instanceKey?, fresh?, reason?}` (the body is optional): validates the bundle on disk
 * and restarts (`202`), or answers `422 E_CONFIG_INVALID` with the issues and leaves the swarm as it is.
 * `instanceKey` needs `agent` (400 E_API_BAD_REQUEST otherwise). An instance key the agent does not know (neither
 * live nor stored) is still accepted, because a restart of an instance with no child and no stored conversation is
 * simply a no-op and multi-tenant callers reset keys whose child may already have idled out or never started; the
 * 202 answer says `instance.known: false` and lists the agent's known instance keys so a caller can spot a typo.
 */
import { Hono } from "hono";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { AGENT_NAME_SCHEMA, INSTANCE_KEY_SCHEMA, MAX_REASON_LENGTH, requestSchema } from "../request-schema.ts";
import { noQuery } from "./no-query.ts";

interface RestartBody {
  agent?: string;
  instanceKey?: string;
  fresh?: boolean;
  reason?: string;
}

const query = noQuery("POST /v1/restart");
const body = requestSchema<RestartBody>({
  route: "POST /v1/restart",
  part: "body",
  schema: {
    type: "object",
    additionalProperties: false,
    properties: {
      agent: AGENT_NAME_SCHEMA,
      instanceKey: INSTANCE_KEY_SCHEMA,
      fresh: { type: "boolean" },
      reason: { type: "string", minLength: 1, maxLength: MAX_REASON_LENGTH },
    },
  },
});

export function restartRoutes(options: { backend: ApiBackend; maxBodyBytes: number }): Hono<ApiEnv> {
  const { backend } = options;
  return new Hono<ApiEnv>().post(
    "/v1/restart",
    query,
    jsonBody({ maxBytes: options.maxBodyBytes, check: body, optional: true }),
    async (c) => {
      const restart = backend.restart?.bind(backend);
      if (!restart)
        throw new ApiError({ status: 501, code: "E_RESTART_UNAVAILABLE", message: "this orchestrator cannot restart" });
      const { agent, instanceKey, fresh, reason = "POST /v1/restart" } = c.var.body as RestartBody;
      if (instanceKey !== undefined && agent === undefined) {
        throw new ApiError({
          status: 400,
          code: "E_API_BAD_REQUEST",
          message: `expected agent with instanceKey ${JSON.stringify(instanceKey)}: an instance key belongs to one agent`,
        });
      }
      const swarm = backend.orchestrator.swarm;
      if (agent !== undefined && !swarm.agents.has(agent)) {
        throw new ApiError({
          status: 404,
          code: "E_AGENT_NOT_FOUND",
          message: `agent ${JSON.stringify(agent)} is not in swarm ${swarm.name}; its agents are: ${[...swarm.agents.keys()].join(", ")}`,
        });
      }
      // Read before the restart: a fresh restart may remove the only trace of the instance.
      const agentInstances =
        instanceKey === undefined
          ? []
          : (await backend.orchestrator.instances()).filter((row) => row.agent === agent).map((row) => row.instanceKey);
      const answer = await restart({
        reason,
        ...(agent !== undefined ? { agent } : {}),
        ...(instanceKey !== undefined ? { instanceKey } : {}),
        ...(fresh === true ? { fresh: true } : {}),
      });
      if (!answer.accepted) {
        throw new ApiError({
          status: 422,
          code: "E_CONFIG_INVALID",
          message: "the bundle on disk is invalid; the running swarm is unchanged",
          extra: { issues: answer.issues },
        });
      }
      if (agent === undefined || instanceKey === undefined) return c.json({ accepted: true, issues: [] }, 202);
      const known = agentInstances.includes(instanceKey);
      return c.json(
        { accepted: true, issues: [], instance: { agent, instanceKey, known, ...(known ? {} : { agentInstances }) } },
        202,
      );
    },
  );
}
