/**
 * The HTTP API over a real Orchestrator with the fake spawner, for the tests of test/http: `apiFixture()` builds
 * one (children become ready at once; the test scripts replies through `spawner.onSent`) and hands back a
 * `request` that calls the handler in process; `backendOf` is the ApiBackend the daemon would build. State roots
 * are removed after each test.
 */
import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApiBackend } from "../../src/http/api-backend.ts";
import { createApiHandler, type HttpApiOptions } from "../../src/http/http-api.ts";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { testBundle } from "../fixtures/orchestrator/test-bundle.ts";
import { FakeSpawner } from "../helpers/fake-spawner.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** The orchestrator as the API's backend, with `restart` when the test gives one (the daemon's coordinator). */
export function backendOf(orchestrator: Orchestrator, restart?: ApiBackend["restart"]): ApiBackend {
  return {
    get swarm() {
      return orchestrator.swarm;
    },
    submit: (options) => orchestrator.submit(options),
    processes: () => orchestrator.processes(),
    instances: () => orchestrator.instances(),
    runtimeEvents: (query) => orchestrator.runtimeEvents(query),
    eventState: (eventId) => orchestrator.eventState(eventId),
    watch: (listener) => orchestrator.onRuntimeEvents(listener),
    ...(restart ? { restart } : {}),
  };
}

export type ApiRequest = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<Response>;

/** Swarm `test-swarm` with agents `a` (entry) and `b`; JSON content type unless the test's headers say otherwise. */
export function apiFixture(
  options: Partial<Omit<HttpApiOptions, "backend">> & { restart?: ApiBackend["restart"] } = {},
) {
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-api-"));
  roots.push(stateRoot);
  const spawner = new FakeSpawner();
  spawner.onSpawn = (child) => queueMicrotask(() => child.ready());
  const orchestrator = new Orchestrator({ bundle: testBundle({ agents: ["a", "b"] }), stateRoot, spawner });
  const { restart, ...rest } = options;
  const handle = createApiHandler({ backend: backendOf(orchestrator, restart), ...rest });
  const request: ApiRequest = (method, path, body, headers = {}) =>
    handle(
      new Request(`http://127.0.0.1${path}`, {
        method,
        headers: { "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      }),
    );
  return { orchestrator, spawner, request, handle, stateRoot };
}

export const bodyOf = async (response: Response) => (await response.json()) as Record<string, any>;
