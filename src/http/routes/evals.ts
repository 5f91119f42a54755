/**
 * `GET /v1/evals` (the runs of `goondan eval` kept under the daemon's state root, newest first: id, when, bundle,
 * mode, pass/fail counts, tokens, cost and duration) and `GET /v1/evals/:runId` (that run's JSON report, as
 * docs/evals.md describes it, each case with its thread and trace): what the studio's Evals view reads. An unknown
 * run is `404 E_EVAL_RUN_NOT_FOUND`; a backend that keeps no runs answers `501 E_EVALS_UNAVAILABLE`.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import { EVAL_RUN_ID_PATTERN, type EvalRuns } from "../../store/eval-runs.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { requestSchema } from "../request-schema.ts";
import { noQuery } from "./no-query.ts";

const RUN = "GET /v1/evals/:runId";
const listQuery = noQuery("GET /v1/evals");
const runQuery = noQuery(RUN);
const runPath = requestSchema<{ runId: string }>({
  route: RUN,
  part: "path",
  schema: {
    type: "object",
    required: ["runId"],
    additionalProperties: false,
    properties: { runId: { type: "string", pattern: EVAL_RUN_ID_PATTERN, description: "a run id of GET /v1/evals" } },
  },
});

function evalsOf(backend: ApiBackend): EvalRuns {
  if (backend.evals === undefined)
    throw new ApiError({ status: 501, code: "E_EVALS_UNAVAILABLE", message: "this API keeps no eval runs" });
  return backend.evals;
}

export function evalRoutes(backend: ApiBackend): Hono<ApiEnv> {
  return new Hono<ApiEnv>()
    .get("/v1/evals", listQuery, async (c) => c.json({ runs: await evalsOf(backend).list() }))
    .get(
      "/v1/evals/:runId",
      runQuery,
      validator("param", (value) => runPath(value)),
      async (c) => {
        const { runId } = c.req.valid("param");
        const report = await evalsOf(backend).read(runId);
        if (report === undefined)
          throw new ApiError({
            status: 404,
            code: "E_EVAL_RUN_NOT_FOUND",
            message: `no eval run ${JSON.stringify(runId)} is kept here; GET /v1/evals lists them`,
          });
        return c.json(report);
      },
    );
}
