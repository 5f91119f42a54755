/**
 * `GET /v1/schedules` (the swarm's schedules: each Connection of the built-in `schedule` connector with its cron or
 * interval, time zone, catch-up, next fire time, newest accepted tick with its event id and result, and the ticks
 * fired, missed and late since the daemon started; and as `timers` the calls suspended by the `timer` tool, with
 * when they wake and the signal they wait for, and the messages `agents__schedule` sent for later) and `POST /v1/schedules/:name/run`, which fires one tick of
 * that schedule now (`202 {eventId}`, outside its schedule: its record of accepted ticks is left alone); an
 * unknown name is `404 E_SCHEDULE_NOT_FOUND` naming the schedules there are. On a cluster node the `timers` are the
 * cluster's: each once, from the node that runs its instance, with that `node`, and the nodes that did not answer
 * under `unanswered`.
 */
import { Hono } from "hono";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { Approval } from "../../protocol/approval.ts";
import { awaitedSignal } from "../../protocol/suspension.ts";
import type { JsonObject } from "../../shared/json.ts";
import { validator } from "hono/validator";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { requestSchema } from "../request-schema.ts";
import { noQuery } from "./no-query.ts";

const RUN = "POST /v1/schedules/:name/run";
const listQuery = noQuery("GET /v1/schedules");
const runQuery = noQuery(RUN);
const runPath = requestSchema<{ name: string }>({
  route: RUN,
  part: "path",
  schema: {
    type: "object",
    required: ["name"],
    additionalProperties: false,
    properties: { name: { type: "string", minLength: 1, maxLength: 200, pattern: "^[a-z0-9._-]+$" } },
  },
});

/** A suspended call as the list shows it: whose, which tool, until when, and the signal it waits for. */
export function timerView(approval: Approval): JsonObject {
  const signal = awaitedSignal(approval);
  return {
    id: approval.id,
    agent: approval.agent,
    instanceKey: approval.instanceKey,
    toolName: approval.toolName,
    eventId: approval.eventId,
    ...(approval.expiresAt === undefined ? {} : { until: new Date(approval.expiresAt).toISOString() }),
    ...(signal === undefined ? {} : { signal }),
  };
}

/** A message sent for later (`agents__schedule`) as the list shows it: to whom, from whom, and when. */
export function scheduledSendView(event: AgentEvent): JsonObject {
  return {
    eventId: event.id,
    agent: event.agent,
    instanceKey: event.instanceKey,
    toolName: "agents__schedule",
    from: event.source.name,
    until: new Date(event.notBefore ?? 0).toISOString(),
  };
}

function schedulesOf(backend: ApiBackend): NonNullable<ApiBackend["schedules"]> {
  if (backend.schedules === undefined)
    throw new ApiError({
      status: 501,
      code: "E_SCHEDULES_UNAVAILABLE",
      message: "this orchestrator runs no schedules",
    });
  return backend.schedules;
}

export function scheduleRoutes(backend: ApiBackend): Hono<ApiEnv> {
  return new Hono<ApiEnv>()
    .get("/v1/schedules", listQuery, async (c) => {
      const schedules = schedulesOf(backend);
      const cluster = backend.cluster;
      if (cluster) {
        const held = await cluster.reads.held();
        const timers = [
          ...held.suspended.map((row) => ({ ...timerView(row), node: row.node })),
          ...held.later.map((event) => ({ ...scheduledSendView(event), node: event.node })),
        ];
        return c.json({ schedules: await schedules.list(), timers, unanswered: held.unanswered });
      }
      const suspended = (await backend.orchestrator.approvals.suspended()).map(timerView);
      const sends = (await backend.orchestrator.scheduled()).map(scheduledSendView);
      return c.json({ schedules: await schedules.list(), timers: [...suspended, ...sends] });
    })
    .post(
      "/v1/schedules/:name/run",
      runQuery,
      validator("param", (value) => runPath(value)),
      async (c) => {
        const { name } = c.req.valid("param");
        const schedules = schedulesOf(backend);
        const fired = await schedules.run(name);
        if (fired === undefined) {
          const names = (await schedules.list()).map((row) => row.connection);
          throw new ApiError({
            status: 404,
            code: "E_SCHEDULE_NOT_FOUND",
            message: `no schedule ${JSON.stringify(name)}; schedules: ${names.length === 0 ? "none" : names.join(", ")}`,
          });
        }
        return c.json(fired, 202);
      },
    );
}
