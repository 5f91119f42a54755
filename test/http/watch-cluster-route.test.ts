/**
 * `GET /v1/watch` on a cluster node, over a real Orchestrator (fake spawner) with a fake ClusterLive and ClusterReads:
 * the stream opens only once the other nodes were asked, naming those that did not answer; this node's events
 * carry its node and the other nodes' come with theirs, the filters applying to both; `after=` takes the cluster
 * cursor, replays every page of the cluster reads, then the live events, none twice; a one-host cursor is a 400
 * naming the parameter and the cluster form; closing the stream stops the live watch.
 */
import { describe, expect, it } from "bun:test";
import type { ClusterEventQuery, ClusterReads } from "../../src/cluster/view/reads.ts";
import type { ClusterLive } from "../../src/cluster/live/live-interest.ts";
import type { UnansweredNode } from "../../src/cluster/members/node-fan-out.ts";
import type { NodeRuntimeEvent } from "../../src/cluster/view/runtime-events-merge.ts";
import { createApiHandler } from "../../src/http/http-api.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { sseReader } from "../helpers/sse-reader.ts";
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

function clusterWatch(
  runtimeEvents: ClusterReads["runtimeEvents"] = async (query) => ({
    events: [],
    cursor: query.after ?? {},
    more: false,
    unanswered: [],
  }),
) {
  const { orchestrator, spawner } = apiFixture();
  const fake = fakeLive();
  const reads = { runtimeEvents } as ClusterReads;
  const handle = createApiHandler({
    backend: { ...backendOf(orchestrator), cluster: clusterPart({ reads, live: fake.live }) },
  });
  const get = (path: string) => handle(new Request(`http://127.0.0.1${path}`));
  /** A child of agent `b` on this node that can send runtime events. */
  const child = async () => {
    await orchestrator.submit({ input: "x", agent: "b", instanceKey: "k" }).accepted;
    while (spawner.live().length === 0) await Bun.sleep(2);
    return spawner.live()[0]!;
  };
  return { get, fake, child };
}

describe("GET /v1/watch on a cluster node", () => {
  it("opens once the other nodes were asked, names those that did not answer, and shows every node's events with their node, filtered", async () => {
    const { get, fake, child } = clusterWatch();
    let opened = false;
    const pending = get("/v1/watch?agent=b").then((response) => ((opened = true), response));
    while (fake.watching() === 0) await Bun.sleep(2);
    await Bun.sleep(30);
    expect(opened).toBe(false); // not before the interest was answered
    fake.emit([{ ...event("turn.started", "b", 1), node: "n2" }]); // right after asking: held, not lost
    fake.answer([{ node: "n3", status: "timeout" }]);
    const response = await pending;
    expect(response.status).toBe(200);
    const sse = sseReader(response);
    expect(await sse.next()).toEqual({ event: "cluster", data: { unanswered: [{ node: "n3", status: "timeout" }] } });
    expect((await sse.next("runtime")).data).toMatchObject({ node: "n2", type: "turn.started", agent: "b" });

    fake.emit([
      { ...event("tool.called", "a", 2), node: "n2" },
      { ...event("tool.called", "b", 3), node: "n3" },
    ]);
    expect((await sse.next("runtime")).data).toMatchObject({ node: "n3", type: "tool.called", agent: "b" });
    const own = await child();
    own.emit("runtime_events", { events: [event("tool.completed", "b", 4)] });
    expect((await sse.next("runtime")).data).toMatchObject({ node: "n1", type: "tool.completed", agent: "b" });
    expect(sse.seen.filter((item) => item.event === "runtime").every((item) => item.data.agent === "b")).toBe(true);
    await sse.cancel();
    for (let i = 0; i < 100 && fake.stopped() === 0; i++) await Bun.sleep(5);
    expect(fake.stopped()).toBe(1);
    expect(fake.watching()).toBe(0);
  });

  it("after= takes the cluster cursor, replays every page from every node, then live events, none twice", async () => {
    const queries: ClusterEventQuery[] = [];
    const first = { ...event("turn.started", "b", 1), node: "n2" };
    const second = { ...event("tool.called", "b", 2), node: "n1" };
    const third = { ...event("tool.completed", "b", 3), node: "n2" };
    const { get, fake } = clusterWatch(async (query) => {
      queries.push(query);
      // The first page is cut (n2 had more); the second ends the replay.
      if (queries.length === 1)
        return {
          events: [first, second],
          cursor: { n1: 4, n2: 7 },
          more: true,
          unanswered: [{ node: "n3", status: "timeout" }],
        };
      fake.emit([third, { ...event("turn.completed", "b", 4), node: "n2" }]); // heard live while the replay reads it too
      return { events: [third], cursor: { n1: 4, n2: 9 }, more: false, unanswered: [] };
    });
    const pending = get("/v1/watch?after=n1:2,n2:5&instanceKey=k");
    while (fake.watching() === 0) await Bun.sleep(2);
    fake.answer();
    const sse = sseReader(await pending);
    const types = [];
    for (let i = 0; i < 4; i++) types.push((await sse.next("runtime")).data.type);
    expect(types).toEqual(["turn.started", "tool.called", "tool.completed", "turn.completed"]);
    expect(queries).toEqual([
      { instanceKey: "k", after: { n1: 2, n2: 5 } },
      { instanceKey: "k", after: { n1: 4, n2: 7 } },
    ]);
    expect(sse.seen.find((item) => item.event === "cluster")?.data).toEqual({
      unanswered: [{ node: "n3", status: "timeout" }],
      replay: true,
    });
    fake.emit([{ ...event("turn.started", "b", 5), node: "n2" }]);
    expect((await sse.next("runtime")).data.at).toBe(at(5));
    expect(sse.seen.filter((item) => item.data.type === "tool.completed")).toHaveLength(1);
    await sse.cancel();
  });

  it("after=0 replays from the start of every node", async () => {
    const queries: ClusterEventQuery[] = [];
    const { get, fake } = clusterWatch(
      async (query) => (
        queries.push(query),
        { events: [{ ...event("turn.started", "b", 1), node: "n2" }], cursor: { n2: 1 }, more: false, unanswered: [] }
      ),
    );
    const pending = get("/v1/watch?after=0");
    while (fake.watching() === 0) await Bun.sleep(2);
    fake.answer();
    const sse = sseReader(await pending);
    expect((await sse.next("runtime")).data.node).toBe("n2");
    expect(queries).toEqual([{ after: {} }]);
    await sse.cancel();
  });

  it("refuses a malformed cluster cursor with 400 naming after= and the cluster form, without watching", async () => {
    const { get, fake } = clusterWatch();
    for (const bad of ["12", "n1:x", "n1:3,", "n1"]) {
      const response = await get(`/v1/watch?after=${encodeURIComponent(bad)}`);
      expect(response.status).toBe(400);
      const body = await bodyOf(response);
      expect(body.error.code).toBe("E_API_BAD_REQUEST");
      expect(body.error.message).toContain("after");
      expect(body.error.message).toContain("n1:12,n2:40");
    }
    expect(fake.watching()).toBe(0);
  });
});
