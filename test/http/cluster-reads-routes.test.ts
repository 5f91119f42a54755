/**
 * The read routes on a cluster node: what the backend's ClusterReads gives is served in the one-host shapes, each
 * row and event with its node, the paging cursor one position per node, and the nodes that did not answer named.
 */
import { describe, expect, it } from "bun:test";
import type { ClusterEventQuery, ClusterReads } from "../../src/cluster/view/reads.ts";
import type { NodeRuntimeEvent } from "../../src/cluster/view/runtime-events-merge.ts";
import { createApiHandler } from "../../src/http/http-api.ts";
import { apiFixture, backendOf, bodyOf, clusterPart } from "./api-fixture.ts";

const event = (node: string, at: string): NodeRuntimeEvent => ({
  type: "turn.started",
  at,
  agent: "b",
  instanceKey: "k",
  traceId: "a".repeat(32),
  spanId: "s",
  node,
});

function clusterApi(overrides: Partial<ClusterReads> = {}) {
  const { orchestrator } = apiFixture();
  const queries: ClusterEventQuery[] = [];
  const reads: ClusterReads = {
    processes: async () => ({
      processes: [
        {
          kind: "agent",
          agent: "b",
          instanceKey: "k",
          pid: 7,
          status: "idle",
          restarts: 0,
          consecutiveCrashes: 0,
          startedAt: null,
          queued: 0,
          node: "n2",
        },
      ],
      unanswered: [{ node: "n3", status: "timeout" }],
    }),
    instances: async () => ({
      instances: [{ agent: "b", instanceKey: "k", status: "idle", queued: 0, node: "n2" }],
      unanswered: [{ node: "n3", status: "timeout" }],
    }),
    runtimeEvents: async (query) => {
      queries.push(query);
      return {
        events: [event("n2", "2026-11-25T10:00:01.000Z"), event("n1", "2026-11-25T10:00:02.000Z")],
        cursor: { ...query.after, n1: 5, n2: 9 },
        unanswered: [],
      };
    },
    conversation: async () => ({
      node: "n2",
      messages: [{ id: "m1", role: "user", content: "hi" } as never],
      unanswered: [],
    }),
    eventState: async (eventId) =>
      eventId === "evt_1"
        ? { state: { eventId, state: "running", node: "n2" }, unanswered: [] }
        : { unanswered: [{ node: "n3", status: "timeout" }] },
    ...overrides,
  } as ClusterReads;
  const handle = createApiHandler({ backend: { ...backendOf(orchestrator), cluster: clusterPart({ reads }) } });
  return { get: (path: string) => handle(new Request(`http://127.0.0.1${path}`)), queries };
}

describe("the read routes on a cluster node", () => {
  it("GET /v1/processes and /v1/instances: every node's rows with their node, and the nodes that did not answer", async () => {
    const { get } = clusterApi();
    const processes = await bodyOf(await get("/v1/processes"));
    expect(processes.processes[0].node).toBe("n2");
    expect(processes.unanswered).toEqual([{ node: "n3", status: "timeout" }]);
    const instances = await bodyOf(await get("/v1/instances"));
    expect(instances).toEqual({
      instances: [{ agent: "b", instanceKey: "k", status: "idle", queued: 0, node: "n2" }],
      unanswered: [{ node: "n3", status: "timeout" }],
    });
  });

  it("GET /v1/instances/:agent/:instanceKey/events takes a cluster cursor and answers the next one", async () => {
    const { get, queries } = clusterApi();
    const response = await get("/v1/instances/b/k/events?after=n1:3,n3:4&limit=10");
    expect(response.status).toBe(200);
    const body = await bodyOf(response);
    expect(body.events.map((item: NodeRuntimeEvent) => item.node)).toEqual(["n2", "n1"]);
    expect(body.cursor).toBe("n1:5,n2:9,n3:4");
    expect(queries[0]).toEqual({ agent: "b", instanceKey: "k", limit: 10, after: { n1: 3, n3: 4 } });
  });

  it("refuses a one-host numeric cursor on a cluster node, naming the cluster form", async () => {
    const { get } = clusterApi();
    const response = await get("/v1/runtime-events?after=12");
    expect(response.status).toBe(400);
    const body = await bodyOf(response);
    expect(body.error.code).toBe("E_API_BAD_REQUEST");
    expect(body.error.message).toContain("n1:12,n2:40");
  });

  it("GET /v1/runtime-events passes every filter and GET /v1/traces/:traceId names the nodes", async () => {
    const { get, queries } = clusterApi();
    const page = await bodyOf(await get(`/v1/runtime-events?agent=b&turnId=turn_1&traceId=${"a".repeat(32)}`));
    expect(page.cursor).toBe("n1:5,n2:9");
    expect(queries[0]).toEqual({ agent: "b", turnId: "turn_1", traceId: "a".repeat(32), after: {} });
    const trace = await bodyOf(await get(`/v1/traces/${"a".repeat(32)}`));
    expect(trace.events.map((item: NodeRuntimeEvent) => item.node)).toEqual(["n2", "n1"]);
    expect(trace.unanswered).toEqual([]);
  });

  it("GET /v1/instances/:agent/:instanceKey/messages names the node it came from, and 404 when no node has it", async () => {
    const { get } = clusterApi();
    const found = await bodyOf(await get("/v1/instances/b/k/messages"));
    expect(found.node).toBe("n2");
    expect(found.messages).toHaveLength(1);
    const missing = clusterApi({
      conversation: async () => ({ messages: [], unanswered: [{ node: "n3", status: "no_responders" }] }),
    });
    const response = await missing.get("/v1/instances/b/k/messages");
    expect(response.status).toBe(404);
    const body = await bodyOf(response);
    expect(body.error.code).toBe("E_INSTANCE_NOT_FOUND");
    expect(body.unanswered).toEqual([{ node: "n3", status: "no_responders" }]);
  });
});

describe("GET /v1/events/:eventId on a cluster node", () => {
  it("answers the furthest state a node knows with that node, and 404 naming the nodes that did not answer", async () => {
    const { get } = clusterApi();
    expect(await bodyOf(await get("/v1/events/evt_1"))).toEqual({
      eventId: "evt_1",
      state: "running",
      node: "n2",
      unanswered: [],
    });
    const missing = await get("/v1/events/evt_2");
    expect(missing.status).toBe(404);
    const body = await bodyOf(missing);
    expect(body.error.code).toBe("E_API_EVENT_NOT_FOUND");
    expect(body.unanswered).toEqual([{ node: "n3", status: "timeout" }]);
  });
});

describe("GET /v1/runtime-events on one host", () => {
  it("answers the one-host shape: events and a numeric cursor, and refuses a cluster cursor", async () => {
    const { request } = apiFixture();
    const response = await request("GET", "/v1/runtime-events?agent=a&after=0");
    expect(response.status).toBe(200);
    expect(await bodyOf(response)).toEqual({ events: [], cursor: 0 });
    const refused = await request("GET", "/v1/runtime-events?after=n1:3");
    expect(refused.status).toBe(400);
    expect((await bodyOf(refused)).error.code).toBe("E_API_BAD_REQUEST");
  });
});
