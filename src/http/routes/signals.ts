/**
 * `POST /v1/signals/:name` `{payload?}`: wakes every turn suspended in `timer__waitForSignal` for that name, each
 * getting `payload` (any JSON, default null) as its tool's result: `202 {delivered: [{approvalId, agent,
 * instanceKey, eventId}]}` once the wake-ups are durable. A signal nobody waits for is `404 E_SIGNAL_NOT_FOUND` and
 * is kept nowhere, so nothing is lost silently: the sender knows it reached no one.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { JsonValue } from "../../shared/json.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { requestSchema } from "../request-schema.ts";
import { noQuery } from "./no-query.ts";

const SEND = "POST /v1/signals/:name";
const query = noQuery(SEND);
const path = requestSchema<{ name: string }>({
  route: SEND,
  part: "path",
  schema: {
    type: "object",
    required: ["name"],
    additionalProperties: false,
    properties: { name: { type: "string", minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9._-]+$" } },
  },
});
const body = requestSchema<{ payload?: JsonValue }>({
  route: SEND,
  part: "body",
  schema: { type: "object", additionalProperties: false, properties: { payload: {} } },
});

export function signalRoutes(options: { backend: ApiBackend; maxBodyBytes: number }): Hono<ApiEnv> {
  const { backend } = options;
  return new Hono<ApiEnv>().post(
    "/v1/signals/:name",
    query,
    validator("param", (value) => path(value)),
    jsonBody({ maxBytes: options.maxBodyBytes, check: body, optional: true }),
    async (c) => {
      const { name } = c.req.valid("param");
      const answer = await backend.orchestrator.approvals.signal(
        name,
        (c.var.body as { payload?: JsonValue } | undefined)?.payload ?? null,
      );
      if (answer.type === "missing")
        throw new ApiError({
          status: 404,
          code: "E_SIGNAL_NOT_FOUND",
          message: `no turn waits for signal ${JSON.stringify(name)}; it was not kept`,
          suggestion: "GET /v1/schedules lists the suspended calls (timers) and the signals they wait for",
        });
      const delivered = answer.approvals.map((approval) => ({
        approvalId: approval.id,
        agent: approval.agent,
        instanceKey: approval.instanceKey,
        eventId: approval.eventId,
      }));
      return c.json({ delivered }, 202);
    },
  );
}
