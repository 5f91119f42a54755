/**
 * `GET /v1/approvals` (the tool calls waiting for a person's decision, oldest first: id, agent, instanceKey,
 * toolName, arguments, requestedAt, expiresAt, approvers) and `POST /v1/approvals/:id` `{decision: "approve" |
 * "deny", reason?, approver?, wait?, stream?}`: the decision is applied once (`200` with the decided approval, and with
 * `wait: true` the `outcome` of the turn it resumes when it was the last one that turn waited for; with `stream: true`
 * a `text/event-stream` of the decided `approval`, the resumed turn's progress as `POST /v1/events` streams it, and
 * `done` with its outcome, sse-progress.ts); a second decision
 * is `409 E_APPROVAL_DECIDED` with the first one, an unknown id `404 E_APPROVAL_NOT_FOUND`, and an approver the
 * approval does not name `403 E_APPROVAL_FORBIDDEN`. The approver is the deciding credential's name (auth/approver.ts):
 * a body `approver` naming anyone else is `403 E_APPROVAL_APPROVER_MISMATCH`.
 *
 * On a cluster node the list is the cluster's: each pending approval once, from the node that runs its instance,
 * with that `node`, and the nodes that did not answer under `unanswered`. A decision sent to any node is applied by
 * the node running the approval's instance (the desk's routing, src/cluster/instances/cluster-decisions.ts).
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { Approval } from "../../protocol/approval.ts";
import type { ApprovalView } from "../../protocol/api-wire.ts";
import type { JsonObject } from "../../shared/json.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { checkApprover } from "../auth/approver.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { MAX_REASON_LENGTH, requestSchema } from "../request-schema.ts";
import { noQuery } from "./no-query.ts";
import { progressRelay } from "../sse-progress.ts";
import { sseResponse } from "../sse-stream.ts";

const DECIDE = "POST /v1/approvals/:id";

interface DecideBody {
  decision: "approve" | "deny";
  reason?: string;
  approver?: string;
  wait?: boolean;
  stream?: boolean;
}

const listQuery = noQuery("GET /v1/approvals");
const decideQuery = noQuery(DECIDE);
const decidePath = requestSchema<{ id: string }>({
  route: DECIDE,
  part: "path",
  schema: {
    type: "object",
    required: ["id"],
    additionalProperties: false,
    properties: { id: { type: "string", minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_-]+$" } },
  },
});
const decideBody = requestSchema<DecideBody>({
  route: DECIDE,
  part: "body",
  schema: {
    type: "object",
    required: ["decision"],
    additionalProperties: false,
    properties: {
      decision: { enum: ["approve", "deny"] },
      reason: { type: "string", minLength: 1, maxLength: MAX_REASON_LENGTH },
      approver: { type: "string", minLength: 1, maxLength: 200 },
      wait: { type: "boolean" },
      stream: { type: "boolean" },
    },
  },
});

/** An approval as the API shows it (times as ISO strings). */
export function approvalView(approval: Approval): ApprovalView {
  const decision = approval.decision;
  return {
    id: approval.id,
    agent: approval.agent,
    instanceKey: approval.instanceKey,
    toolName: approval.toolName,
    arguments: approval.arguments,
    requestedAt: new Date(approval.requestedAt).toISOString(),
    ...(approval.expiresAt === undefined ? {} : { expiresAt: new Date(approval.expiresAt).toISOString() }),
    ...(approval.approvers === undefined ? {} : { approvers: approval.approvers }),
    eventId: approval.eventId,
    turnId: approval.turnId,
    ...(decision === undefined
      ? {}
      : {
          decision: decision.decision,
          decidedAt: new Date(decision.decidedAt).toISOString(),
          ...(decision.reason === undefined ? {} : { reason: decision.reason }),
          ...(decision.decidedBy === undefined ? {} : { decidedBy: decision.decidedBy }),
        }),
  };
}

export function approvalRoutes(options: {
  backend: ApiBackend;
  maxBodyBytes: number;
  heartbeatMs?: number;
}): Hono<ApiEnv> {
  const desk = options.backend.orchestrator.approvals;
  return new Hono<ApiEnv>()
    .get("/v1/approvals", listQuery, async (c) => {
      const cluster = options.backend.cluster;
      if (!cluster) return c.json({ approvals: (await desk.pending()).map(approvalView) });
      const { approvals, unanswered } = await cluster.reads.held();
      return c.json({ approvals: approvals.map((row) => ({ ...approvalView(row), node: row.node })), unanswered });
    })
    .post(
      "/v1/approvals/:id",
      decideQuery,
      validator("param", (value) => decidePath(value)),
      jsonBody({ maxBytes: options.maxBodyBytes, check: decideBody }),
      async (c) => {
        const { id } = c.req.valid("param");
        const body = c.var.body as DecideBody;
        const who = checkApprover(body.approver);
        if (!who.ok) throw new ApiError({ status: who.status, code: who.code, message: who.message });
        const relay = progressRelay();
        const answer = await desk.decide({
          id,
          decision: body.decision,
          ...(body.reason === undefined ? {} : { reason: body.reason }),
          ...(who.approver === undefined ? {} : { approver: who.approver }),
          ...(body.wait === true ? { wait: true } : {}),
          ...(body.stream === true ? { onProgress: relay.onProgress } : {}),
        });
        switch (answer.type) {
          case "decided":
            if (body.stream === true) {
              const { approval, outcome } = answer;
              return sseResponse({
                c,
                ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
                run: async (writer) => {
                  writer.send({ event: "approval", data: approvalView(approval) });
                  relay.attach(writer);
                  if (outcome !== undefined) writer.send({ event: "done", data: await outcome });
                },
              });
            }
            if (answer.outcome === undefined) return c.json({ approval: approvalView(answer.approval) });
            c.env.keepOpen();
            return c.json({ approval: approvalView(answer.approval), outcome: await answer.outcome });
          case "missing":
            throw new ApiError({
              status: 404,
              code: "E_APPROVAL_NOT_FOUND",
              message: `no approval ${JSON.stringify(id)}; GET /v1/approvals lists the pending ones`,
            });
          case "already":
            throw new ApiError({
              status: 409,
              code: "E_APPROVAL_DECIDED",
              message: `approval ${id} was decided already (${answer.approval.decision?.decision ?? "?"}); a decision is applied once`,
              extra: { approval: approvalView(answer.approval) as unknown as JsonObject },
            });
          case "forbidden":
            throw new ApiError({
              status: 403,
              code: "E_APPROVAL_FORBIDDEN",
              message: `approval ${id} may be decided only by ${(answer.approval.approvers ?? []).join(", ")}${who.approver === undefined ? "" : `, not ${who.approver}`}; decide with one of those credentials`,
            });
        }
      },
    );
}
