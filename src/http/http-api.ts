/**
 * The built-in HTTP API (SPEC §4) as a plain `Request → Response` handler plus a Bun.serve wrapper:
 * `/healthz`, `/v1/processes`, `/v1/events` (202 once durably accepted, or the turn's outcome with
 * `wait`), `/v1/instances`, `/v1/instances/:agent/:instanceKey/events`, `/v1/restart`. JSON in and out;
 * errors are `{error: {code, message}}` with a 4xx/5xx status and never a stack. A bearer token guards
 * everything but `/healthz` when one is configured.
 *
 * `/v1/restart` takes `{agent?, instanceKey?, fresh?, reason?}`; `instanceKey` needs `agent` (400
 * E_API_BAD_REQUEST otherwise). An instance key the agent does not know (neither live nor stored) is still
 * accepted, because a restart of an instance with no child and no stored conversation is simply a no-op and
 * multi-tenant callers reset keys whose child may already have idled out or never started; the 202 answer
 * says `instance.known: false` and lists the agent's known instance keys so a caller can spot a typo.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isGoondanError, describe } from "../shared/errors.ts";
import { isJsonObject, type JsonObject } from "../shared/json.ts";
import { silentLogger, type Logger } from "../shared/logger.ts";
import type { ApiBackend } from "./api-backend.ts";
import { readJsonBody, BodyError } from "./read-json-body.ts";

export interface HttpApiOptions {
  backend: ApiBackend;
  /** Bearer token; when set every route but /healthz needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /** Default: silent. */
  logger?: Logger;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const apiError = (status: number, code: string, message: string, extra: JsonObject = {}): Response => json(status, { error: { code, message }, ...extra });

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();

function authorized(request: Request, token: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const presented = header.startsWith("Bearer ") ? header.slice(7) : "";
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0;
}

/** The longest wait a timer can hold (2^31-1 ms, ~24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

const STATUS_OF_CODE: Record<string, number> = { AGENT_NOT_FOUND: 404, ORCHESTRATOR_STOPPING: 503 };

/** Lets a long `wait` outlive the server's idle timeout. */
export interface RequestTimeouts {
  timeout(request: Request, seconds: number): void;
}

/** A 400 naming the first of `fields` that `body` has but not as a non-empty string; undefined when all are fine. */
function nonEmptyStrings(body: Record<string, unknown>, fields: readonly string[]): Response | undefined {
  const field = fields.find((name) => body[name] !== undefined && (typeof body[name] !== "string" || body[name] === ""));
  return field === undefined ? undefined : apiError(400, "E_API_BAD_REQUEST", `expected ${field} to be a non-empty string, got ${JSON.stringify(body[field])}`);
}

export function createApiHandler(options: HttpApiOptions): (request: Request, server?: RequestTimeouts) => Promise<Response> {
  const logger = options.logger ?? silentLogger();
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const routes: { pattern: RegExp; methods: Record<string, (request: Request, params: string[], server?: RequestTimeouts) => Promise<Response> | Response> }[] = [
    { pattern: /^\/healthz$/, methods: { GET: () => json(200, { status: "ok" }) } },
    { pattern: /^\/v1\/processes$/, methods: { GET: () => json(200, { processes: options.backend.processes() }) } },
    { pattern: /^\/v1\/instances$/, methods: { GET: () => json(200, { instances: options.backend.instances() }) } },
    {
      pattern: /^\/v1\/instances\/([^/]+)\/([^/]+)\/events$/,
      methods: {
        GET: (request, [agent = "", instanceKey = ""]) => {
          if (!options.backend.swarm.agents.has(agent)) return apiError(404, "AGENT_NOT_FOUND", `agent ${JSON.stringify(agent)} is not in the swarm`);
          const limitParam = new URL(request.url).searchParams.get("limit");
          const limit = limitParam === null ? undefined : Number(limitParam);
          if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return apiError(400, "E_API_BAD_REQUEST", `expected limit to be a positive integer, got ${JSON.stringify(limitParam)}`);
          const events = options.backend.runtimeEvents({ agent, instanceKey, ...(limit ? { limit } : {}) }).map((row) => row.event);
          if (events.length === 0) return apiError(404, "INSTANCE_NOT_FOUND", `instance ${agent}/${instanceKey} has no runtime events`);
          return json(200, { agent, instanceKey, events, skipped: 0 });
        },
      },
    },
    { pattern: /^\/v1\/events$/, methods: { POST: (request, _params, server) => postEvent(request, server) } },
    {
      pattern: /^\/v1\/restart$/,
      methods: {
        POST: (request) => postRestart(request),
      },
    },
  ];

  async function postRestart(request: Request): Promise<Response> {
    const restart = options.backend.restart?.bind(options.backend);
    if (!restart) return apiError(501, "E_RESTART_UNAVAILABLE", "this orchestrator cannot restart");
    const body = await readJsonBody(request, { maxBytes: maxBodyBytes, optional: true });
    const reason = typeof body.reason === "string" ? body.reason : "POST /v1/restart";
    if (body.agent !== undefined && typeof body.agent !== "string") return apiError(400, "E_API_BAD_REQUEST", "expected agent to be a string");
    const badKey = nonEmptyStrings(body, ["instanceKey"]);
    if (badKey) return badKey;
    const agent = typeof body.agent === "string" ? body.agent : undefined;
    const instanceKey = typeof body.instanceKey === "string" ? body.instanceKey : undefined;
    if (instanceKey !== undefined && agent === undefined) return apiError(400, "E_API_BAD_REQUEST", `expected agent with instanceKey ${JSON.stringify(instanceKey)}: an instance key belongs to one agent`);
    const swarm = options.backend.swarm;
    if (agent !== undefined && !swarm.agents.has(agent)) {
      return apiError(404, "AGENT_NOT_FOUND", `agent ${JSON.stringify(agent)} is not in swarm ${swarm.name}; its agents are: ${[...swarm.agents.keys()].join(", ")}`);
    }
    // Read before the restart: a fresh restart may remove the only trace of the instance.
    const agentInstances = instanceKey === undefined ? [] : options.backend.instances().filter((row) => row.agent === agent).map((row) => row.instanceKey);
    const answer = await restart({ reason, ...(agent !== undefined ? { agent } : {}), ...(instanceKey !== undefined ? { instanceKey } : {}), ...(body.fresh === true ? { fresh: true } : {}) });
    if (!answer.accepted) return json(422, { error: { code: "E_CONFIG_INVALID", message: "the bundle on disk is invalid; the running swarm is unchanged" }, issues: answer.issues });
    if (agent === undefined || instanceKey === undefined) return json(202, { accepted: true, issues: [] });
    const known = agentInstances.includes(instanceKey);
    return json(202, { accepted: true, issues: [], instance: { agent, instanceKey, known, ...(known ? {} : { agentInstances }) } });
  }

  async function postEvent(request: Request, server?: RequestTimeouts): Promise<Response> {
    const body = await readJsonBody(request, { maxBytes: maxBodyBytes });
    if (typeof body.input !== "string") return apiError(400, "E_API_BAD_REQUEST", `expected input to be a string, got ${JSON.stringify(body.input ?? null)}`);
    const badName = nonEmptyStrings(body, ["agent", "instanceKey"]);
    if (badName) return badName;
    if (body.wait !== undefined && typeof body.wait !== "boolean") return apiError(400, "E_API_BAD_REQUEST", "expected wait to be a boolean");
    // setTimeout fires at once (with a TimeoutOverflowWarning) past 2^31-1 ms: refuse what it cannot wait for.
    if (body.timeoutMs !== undefined && !(Number.isInteger(body.timeoutMs) && (body.timeoutMs as number) >= 1 && (body.timeoutMs as number) <= MAX_TIMEOUT_MS)) {
      return apiError(400, "E_API_BAD_REQUEST", `expected timeoutMs to be an integer from 1 to ${MAX_TIMEOUT_MS} (ms), got ${JSON.stringify(body.timeoutMs)}`);
    }
    const submitted = options.backend.submit({
      input: body.input,
      ...(typeof body.agent === "string" ? { agent: body.agent } : {}),
      ...(typeof body.instanceKey === "string" ? { instanceKey: body.instanceKey } : {}),
      ...(isJsonObject(body.metadata) ? { metadata: body.metadata } : {}),
    });
    await submitted.accepted;
    if (body.wait !== true) return json(202, { eventId: submitted.eventId, agent: submitted.agent, instanceKey: submitted.instanceKey });
    const timeoutMs = typeof body.timeoutMs === "number" ? body.timeoutMs : options.backend.swarm.policy.requestTimeoutMs;
    server?.timeout(request, 0);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    const outcome = await Promise.race([submitted.outcome, timedOut]);
    clearTimeout(timer);
    if (!outcome) {
      return apiError(504, "AGENT_REQUEST_TIMEOUT", `no reply within ${timeoutMs} ms; the event stays accepted and will still run`, { eventId: submitted.eventId });
    }
    return json(200, outcome);
  }

  return async (request, server) => {
    const url = new URL(request.url);
    const route = routes.find((candidate) => candidate.pattern.test(url.pathname));
    if (!route) return apiError(404, "E_API_NOT_FOUND", `no route ${url.pathname}`);
    const handler = route.methods[request.method];
    if (!handler) {
      return json(405, { error: { code: "E_API_METHOD_NOT_ALLOWED", message: `${request.method} is not allowed on ${url.pathname}` } }, { allow: Object.keys(route.methods).join(", ") });
    }
    if (options.token && url.pathname !== "/healthz" && !authorized(request, options.token)) {
      return apiError(401, "E_API_UNAUTHORIZED", "missing or wrong bearer token");
    }
    try {
      const params = (url.pathname.match(route.pattern) ?? []).slice(1).map((part) => decodeURIComponent(part));
      return await handler(request, params, server);
    } catch (error) {
      if (error instanceof BodyError) return apiError(error.status, error.code, error.message);
      if (isGoondanError(error) && (error.blame === "usage" || STATUS_OF_CODE[error.code])) return apiError(STATUS_OF_CODE[error.code] ?? 400, error.code, error.message);
      logger.error({ error: describe(error), path: url.pathname }, "http api request failed");
      return apiError(500, "E_INTERNAL", "internal error");
    }
  };
}

export interface ServedApi {
  port: number;
  host: string;
  stop(): Promise<void>;
}

/** Serves the API on host:port (port 0 picks a free one). */
export function serveHttpApi(options: HttpApiOptions & { host: string; port: number }): ServedApi {
  const handler = createApiHandler(options);
  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    // Bun answers an empty 413 past its own limit, before `fetch` or `error` run: keep it out of the way.
    // Bodies are streamed, not buffered: readJsonBody stops reading at maxBodyBytes (JSON 413), and a
    // route that never reads its body never holds it.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: handler,
    error: () => apiError(500, "E_INTERNAL", "internal error"),
  });
  return { port: server.port ?? options.port, host: options.host, stop: () => server.stop(true) };
}
