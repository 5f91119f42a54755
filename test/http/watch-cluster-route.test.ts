/**
 * `GET /v1/watch` on a cluster node, over a real Orchestrator (fake spawner) with a fake ClusterLive and cluster reads
 * over a fake store per other node (this node's is the orchestrator's, merged by the real merge): the stream opens
 * only once the other nodes were asked, naming those that did not answer; every event is read from the stores and
 * names its node, the filters applying to all; each carries the cluster cursor after it as its id, so `after=` and
 * `Last-Event-ID` resume exactly after it (none missed, none twice, events stored meanwhile included); a malformed
 * cursor is a 400 naming the cluster form; closing the stream stops the live watch.
 */
import { describe, expect, it } from "bun:test";
import type { ClusterEventQuery, ClusterReads } from "../../src/cluster/view/reads.ts";
import type { ClusterLive } from "../../src/cluster/live/live-interest.ts";
import type { UnansweredNode } from "../../src/cluster/members/node-fan-out.ts";
import { mergeRuntimeEvents, type NodeRuntimeEvent } from "../../src/cluster/view/runtime-events-merge.ts";
import { sseMessages } from "../../src/client/sse-messages.ts";
import { createApiHandler } from "../../src/http/http-api.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import type { StoredRuntimeEvent } from "../../src/store/store.ts";
import { apiFixture, backendOf, bodyOf, clusterPart } from "./api-fixture.ts";

const at = (second: number) => `2026-11-25T10:00:${String(second).padStart(2, "0")}.000Z`;
const event = (type: RuntimeEvent["type"], agent: string, second: number): RuntimeEvent => ({
  type,
  at: at(second),
  agent,
  instanceKey: "k",
  traceId: "t",
  spanId: "s",
  turnId: "u1",
});

function fakeLive() {
  const listeners = new Set<(events: readonly NodeRuntimeEvent[]) => void>();
  let answer: (unanswered: UnansweredNode[]) => void = () => {};
  let stopped = 0;
  const live: ClusterLive = {
    node: "n1",
    open: (listener) => {
      listeners.add(listener);
      return {
        ready: new Promise((resolve) => (answer = (unanswered) => resolve({ unanswered }))),
        stop: () => ((stopped += 1), listeners.delete(listener)),
      };
    },
  };
  return {
    live,
    answer: (unanswered: UnansweredNode[] = []) => answer(unanswered),
    emit: (events: NodeRuntimeEvent[]) => {
      for (const listener of listeners) listener(events);
    },
    watching: () => listeners.size,
    stopped: () => stopped,
  };
}

function clusterWatch() {
  const { orchestrator, spawner } = apiFixture();
  const fake = fakeLive();
  const stores = new Map<string, StoredRuntimeEvent[]>([
    ["n2", []],
    ["n3", []],
  ]);
  const queries: ClusterEventQuery[] = [];
  let silent: UnansweredNode[] = [];
  const reads = {
    runtimeEvents: async (query: ClusterEventQuery) => {
      queries.push(query);
      const { after = {}, limit, ...filters } = query;
      const pick = (rows: StoredRuntimeEvent[], from: number | undefined) => {
        const matching = rows.filter(
          (row) =>
            row.cursor > (from ?? 0) &&
            (filters.agent === undefined || row.event.agent === filters.agent) &&
            (filters.instanceKey === undefined || row.event.instanceKey === filters.instanceKey),
        );
        return limit === undefined ? matching : matching.slice(-limit);
      };
      const own = await orchestrator.runtimeEvents({
        ...filters,
        ...(after.n1 === undefined ? {} : { after: after.n1 }),
        ...(limit === undefined ? {} : { limit }),
      });
      const answers = [{ node: "n1", value: own }];
      for (const [node, rows] of stores)
        if (!silent.some((unanswered) => unanswered.node === node))
          answers.push({ node, value: pick(rows, after[node]) });
      return {
        ...mergeRuntimeEvents({ answers, after, ...(limit === undefined ? {} : { limit }) }),
        unanswered: silent,
      };
    },
  } as ClusterReads;
  const handle = createApiHandler({
    backend: { ...backendOf(orchestrator), cluster: clusterPart({ reads, live: fake.live }) },
  });
  const get = (path: string, headers: Record<string, string> = {}) =>
    handle(new Request(`http://127.0.0.1${path}`, { headers }));
  /** Stores `events` on another node and tells the watchers live. */
  const store = (node: string, ...events: RuntimeEvent[]) => {
    const rows = stores.get(node) as StoredRuntimeEvent[];
    for (const stored of events) rows.push({ cursor: rows.length + 1, event: stored });
    fake.emit(events.map((stored) => ({ ...stored, node })));
  };
  /** A child of agent `b` on this node that can send runtime events. */
  const child = async () => {
    await orchestrator.submit({ input: "x", agent: "b", instanceKey: "k" }).accepted;
    while (spawner.live().length === 0) await Bun.sleep(2);
    return spawner.live()[0]!;
  };
  return { get, fake, store, child, queries, silence: (nodes: UnansweredNode[]) => (silent = nodes) };
}

type Message = { id?: string; event?: string; data: Record<string, any> };

/** Reads messages until `count` runtime events came (or the stream ended). */
async function runtime(response: Response, count: number): Promise<Message[]> {
  const taken: Message[] = [];
  if (count === 0) return taken;
  for await (const message of sseMessages(response.body!)) {
    taken.push({ id: message.id, event: message.event, data: JSON.parse(message.data) });
    if (taken.filter((item) => item.event === "runtime").length === count) break;
  }
  return taken;
}

describe("GET /v1/watch on a cluster node", () => {
  it("opens once the other nodes were asked, names those that did not answer, and shows every node's stored events with their node, filtered", async () => {
    const { get, fake, store, child, silence } = clusterWatch();
    silence([{ node: "n3", status: "timeout" }]);
    let opened = false;
    const pending = get("/v1/watch?agent=b").then((response) => ((opened = true), response));
    while (fake.watching() === 0) await Bun.sleep(2);
    await Bun.sleep(30);
    expect(opened).toBe(false); // not before the interest was answered
    fake.answer([{ node: "n3", status: "timeout" }]);
    const response = await pending;
    expect(response.status).toBe(200);
    const reading = runtime(response, 2);
    store("n2", event("turn.started", "b", 1), event("tool.called", "a", 2));
    const own = await child();
    own.emit("runtime_events", { events: [event("tool.completed", "b", 4)] });
    const messages = await reading;
    expect(messages[0]).toMatchObject({ event: "ready" });
    expect(messages[1]).toMatchObject({ event: "cluster", data: { unanswered: [{ node: "n3", status: "timeout" }] } });
    const events = messages.filter((item) => item.event === "runtime");
    expect(events.map((item) => [item.data.node, item.data.type])).toEqual([
      ["n2", "turn.started"],
      ["n1", "tool.completed"],
    ]);
    // Each id is the cluster cursor after the event.
    expect(events[0]!.id).toMatch(/(^|,)n2:1(,|$)/);
    expect(events[1]!.id).toMatch(/(^|,)n1:\d+(,|$)/);
    for (let i = 0; i < 100 && fake.stopped() === 0; i++) await Bun.sleep(5);
    expect(fake.stopped()).toBe(1);
    expect(fake.watching()).toBe(0);
  });

  it("resumes with Last-Event-ID after the event it names: none missed, none twice, those stored while away included", async () => {
    const { get, fake, store } = clusterWatch();
    store("n2", event("turn.started", "b", 1), event("tool.called", "b", 3));
    store("n3", event("turn.started", "c", 2));
    const pending = get("/v1/watch?after=0");
    while (fake.watching() === 0) await Bun.sleep(2);
    fake.answer();
    const first = (await runtime(await pending, 2)).filter((item) => item.event === "runtime");
    expect(first.map((item) => `${item.data.node} ${item.data.at}`)).toEqual([`n2 ${at(1)}`, `n3 ${at(2)}`]);
    expect(first[1]!.id).toBe("n2:1,n3:1");
    // Gone; meanwhile more is stored on both nodes.
    store("n3", event("tool.called", "c", 4));
    store("n2", event("turn.completed", "b", 5));
    const again = get("/v1/watch", { "last-event-id": first[1]!.id! });
    while (fake.watching() === 0) await Bun.sleep(2);
    fake.answer();
    const rest = (await runtime(await again, 3)).filter((item) => item.event === "runtime");
    expect(rest.map((item) => `${item.data.node} ${item.data.type}`)).toEqual([
      "n2 tool.called",
      "n3 tool.called",
      "n2 turn.completed",
    ]);
    expect(rest.map((item) => item.id)).toEqual(["n2:2,n3:1", "n2:2,n3:2", "n2:3,n3:2"]);
  });

  it("after= takes the cluster cursor and reads every node from it", async () => {
    const { get, fake, store, queries } = clusterWatch();
    store("n2", event("turn.started", "b", 1), event("tool.called", "b", 2));
    const pending = get("/v1/watch?after=n2:1&instanceKey=k");
    while (fake.watching() === 0) await Bun.sleep(2);
    fake.answer();
    const messages = await runtime(await pending, 1);
    expect(messages.at(-1)).toMatchObject({ id: "n2:2", data: { node: "n2", type: "tool.called" } });
    expect(queries[0]).toEqual({ instanceKey: "k", after: { n2: 1 } });
  });

  it("refuses a malformed cluster cursor, in after= or Last-Event-ID, with 400 naming the cluster form, without watching", async () => {
    const { get, fake } = clusterWatch();
    for (const bad of ["12", "n1:x", "n1:3,", "n1"]) {
      const response = await get(`/v1/watch?after=${encodeURIComponent(bad)}`);
      expect(response.status).toBe(400);
      const body = await bodyOf(response);
      expect(body.error.code).toBe("E_API_BAD_REQUEST");
      expect(body.error.message).toContain("after");
      expect(body.error.message).toContain("n1:12,n2:40");
    }
    const header = await get("/v1/watch", { "last-event-id": "12.3" });
    expect(header.status).toBe(400);
    expect((await bodyOf(header)).error.message).toContain("n1:12,n2:40");
    expect(fake.watching()).toBe(0);
  });
});
