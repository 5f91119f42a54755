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
import type { ClusterReads } from "../../src/cluster/view/reads.ts";
import type { ApiBackend, ClusterApi } from "../../src/http/api-backend.ts";
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
  return { orchestrator, processes: () => orchestrator.processes(), ...(restart ? { restart } : {}) };
}

/** A cluster node's part of the API for route tests: the parts a test gives, and a connected node n1 otherwise. */
export function clusterPart(part: Partial<ClusterApi>): ClusterApi {
  return {
    reads: {} as ClusterReads,
    status: async () => {
      throw new Error("this test gave no cluster status");
    },
    standing: () => ({ node: "n1", connection: "connected", member: true, instances: 0, awaitingReclaim: 0 }),
    ...part,
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
