/**
 * The built-in HTTP API (SPEC §4, docs/http-api.md), wired: a hono app whose middleware runs, in order, the Host
 * check (DNS rebinding), the Origin check (other sites' pages, with CORS for allowed origins), 405 for a known path
 * with another method, the per-address rate limit, the credential and the route's scope (auth/, open: /healthz, /login
 * and the studio's static page), the per-credential rate limit; then the routes, one
 * module per group (routes/: the JSON API, /metrics, and the studio at /). Every failure is
 * answered by api-error.ts as `{error: {code, message}}`; unknown paths are `404 E_API_NOT_FOUND`. serveHttpApi
 * serves it with Bun.serve, and refuses to listen beyond loopback without credentials.
 */
import { Hono } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import { silentLogger, type Logger } from "../shared/logger.ts";
import { requireTokenOffLoopback, type ApiAccess } from "./api-access.ts";
import type { ApiBackend } from "./api-backend.ts";
import type { ApiEnv, RequestTimeouts } from "./api-env.ts";
import type { ApiSurface } from "./api-surfaces.ts";
import { ApiError, errorBody, errorResponse } from "./api-error.ts";
import { CredentialSet } from "./auth/credential.ts";
import type { RateLimitSettings } from "./auth/rate-limits.ts";
import { StudioLogins } from "./auth/studio-logins.ts";
import { ENV_CREDENTIAL_NAME } from "./auth/tokens-file.ts";
import { authenticate } from "./middleware/authenticate.ts";
import { rateLimits } from "./middleware/rate-limit.ts";
import { hostCheck } from "./middleware/host-check.ts";
import { originCheck } from "./middleware/origin-check.ts";
import { jsonRpcErrors, restErrors } from "./a2a/a2a-error.ts";
import { A2A_REST_PATH } from "./a2a/agent-card.ts";
import { A2A_PATHS, a2aRoutes } from "./a2a/a2a-routes.ts";
import { agUiRoutes } from "./ag-ui/ag-ui-routes.ts";
import { openAiErrors } from "./openai/openai-error.ts";
import { openApiRoutes } from "./openapi/openapi-routes.ts";
import { OPENAI_PATHS, openAiRoutes } from "./openai/openai-routes.ts";
import { approvalRoutes } from "./routes/approvals.ts";
import { clusterRoutes } from "./routes/cluster.ts";
import { eventRoutes } from "./routes/events.ts";
import { evalRoutes } from "./routes/evals.ts";
import { healthRoutes } from "./routes/health.ts";
import { instanceRoutes } from "./routes/instances.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { loginRoutes } from "./routes/login.ts";
import { studioRoutes } from "./routes/studio.ts";
import { traceRoutes } from "./routes/traces.ts";
import { swarmRoutes } from "./routes/swarm.ts";
import { processRoutes } from "./routes/processes.ts";
import { restartRoutes } from "./routes/restart.ts";
import { scheduleRoutes } from "./routes/schedules.ts";
import { signalRoutes } from "./routes/signals.ts";
import { runtimeEventRoutes } from "./routes/runtime-events.ts";
import { watchRoutes } from "./routes/watch.ts";

export interface HttpApiOptions extends ApiAccess {
  backend: ApiBackend;
  /** The address the API is bound to, for the Host check. Default 127.0.0.1. */
  host?: string;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /** Default: silent. */
  logger?: Logger;
  /** How often an idle event stream says it is alive. Default 15 s (sse-stream.ts). */
  heartbeatMs?: number;
  /** Interoperability surfaces not to serve (api-surfaces.ts). Default: none, every one is served. */
  surfacesOff?: readonly ApiSurface[];
  /** Who may use the API, with their scopes; with `token` besides, it is the credential `operator`. Default: none, open. */
  credentials?: CredentialSet;
  /** The studio's login codes and sessions. Default: a new, empty one. */
  logins?: StudioLogins;
  /** Default: none (rate-limits.ts has the daemon's defaults). */
  rateLimits?: RateLimitSettings;
}

/** The credentials: the given set, else `token` alone as the credential `operator` (scope admin), else none. */
function credentialsOf(options: HttpApiOptions): CredentialSet | undefined {
  if (options.credentials && options.credentials.size > 0) return options.credentials;
  return options.token
    ? new CredentialSet([{ name: ENV_CREDENTIAL_NAME, token: options.token, scopes: ["admin"] }])
    : undefined;
}

/** How long stopping the server waits for answers in flight before it closes every connection. */
const STOP_FLUSH_MS = 1_000;

/** The API as a hono app. */
export function createApiApp(options: HttpApiOptions): Hono<ApiEnv> {
  const logger = options.logger ?? silentLogger();
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const heartbeat = options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs };
  const app = new Hono<ApiEnv>();
  app.onError((error, c) => errorResponse({ error, logger, method: c.req.method, path: c.req.path }));
  app.notFound((c) =>
    errorBody({ status: 404, error: { code: "E_API_NOT_FOUND", message: `no route ${c.req.path.slice(0, 200)}` } }),
  );
  const surfaceOn = (surface: ApiSurface) => !options.surfacesOff?.includes(surface);
  // Before every check, so what they refuse on these paths is in OpenAI's error shape too.
  if (surfaceOn("openai")) for (const path of OPENAI_PATHS) app.use(path, openAiErrors);
  if (surfaceOn("a2a")) for (const path of A2A_PATHS) app.use(path, jsonRpcErrors);
  if (surfaceOn("a2a")) app.use(`${A2A_REST_PATH}/*`, restErrors);
  app.use(
    hostCheck({
      boundHost: options.host ?? "127.0.0.1",
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    }),
  );
  app.use(originCheck({ ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}) }));
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => {
        throw new ApiError({
          status: 405,
          code: "E_API_METHOD_NOT_ALLOWED",
          message: `${c.req.method.slice(0, 20)} is not allowed on ${c.req.path.slice(0, 200)}`,
          headers: { allow: methods.join(", ") },
        });
      },
    }),
  );
  const credentials = credentialsOf(options);
  const logins = options.logins ?? new StudioLogins();
  const limits = rateLimits(options.rateLimits);
  app.use(limits.byAddress);
  app.use(authenticate({ ...(credentials ? { credentials } : {}), logins }));
  app.use(limits.byCredential);
  const { backend } = options;
  const groups = [
    healthRoutes(backend),
    processRoutes(backend),
    clusterRoutes(backend),
    instanceRoutes(backend),
    runtimeEventRoutes(backend),
    eventRoutes({ backend, maxBodyBytes, ...heartbeat }),
    watchRoutes({ backend, ...heartbeat }),
    restartRoutes({ backend, maxBodyBytes }),
    approvalRoutes({ backend, maxBodyBytes, ...heartbeat }),
    scheduleRoutes(backend),
    evalRoutes(backend),
    signalRoutes({ backend, maxBodyBytes }),
    metricsRoutes(backend.metrics),
    traceRoutes(backend),
    swarmRoutes(backend),
    studioRoutes(),
    loginRoutes({ logins, authOn: credentials !== undefined }),
    ...(surfaceOn("openai") ? [openAiRoutes({ backend, maxBodyBytes, ...heartbeat })] : []),
    ...(surfaceOn("ag-ui") ? [agUiRoutes({ backend, maxBodyBytes, ...heartbeat })] : []),
    ...(surfaceOn("a2a") ? [a2aRoutes({ backend, maxBodyBytes, token: credentials !== undefined, ...heartbeat })] : []),
    openApiRoutes({ routes: () => app.routes }),
  ];
  for (const routes of groups) {
    app.route("/", routes);
  }
  return app;
}

/** The API as a `Request → Response` handler; `server` is Bun's, when Bun serves it. */
export function createApiHandler(
  options: HttpApiOptions,
): (request: Request, server?: RequestTimeouts) => Promise<Response> {
  const app = createApiApp(options);
  return async (request, server) =>
    app.fetch(request, {
      keepOpen: () => server?.timeout(request, 0),
      clientAddress: () => server?.requestIP?.(request)?.address,
    });
}

export interface ServedApi {
  port: number;
  host: string;
  stop(): Promise<void>;
}

/** Serves the API on host:port (port 0 picks a free one); throws `E_API_TOKEN_REQUIRED` beyond loopback without credentials. */
export function serveHttpApi(options: HttpApiOptions & { host: string; port: number }): ServedApi {
  requireTokenOffLoopback({ host: options.host, credentials: credentialsOf(options)?.size ?? 0 });
  const handler = createApiHandler(options);
  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    // Bun answers an empty 413 past its own limit, before `fetch` or `error` run: keep it out of the way.
    // Bodies are streamed, not buffered: the body limit stops reading at maxBodyBytes (JSON 413), and a
    // route that never reads its body never holds it.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: handler,
    error: () => errorBody({ status: 500, error: { code: "E_INTERNAL", message: "internal error" } }),
  });
  return {
    port: server.port ?? options.port,
    host: options.host,
    // Answers already made (a waiting client's 503 at shutdown) get a moment to leave; open streams are then cut.
    stop: async () => {
      await Promise.race([server.stop(false), Bun.sleep(STOP_FLUSH_MS)]);
      await server.stop(true);
    },
  };
}
