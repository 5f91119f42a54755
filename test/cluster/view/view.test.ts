/**
 * ClusterView on the local NATS with hosts of its own making: each node's part of a read goes over the real
 * messenger, the lease holder is the authority for a conversation, the freshest copy serves when nobody holds it (or
 * the holder is gone), each node is asked from its own cursor, and a node that never answers is named within the bound.
 */
import { describe, expect, it } from "bun:test";
import { ClusterMessenger } from "../../../src/cluster/nats/messenger.ts";
import type { NodeEventQuery, NodeReadApi, ReadHost, StoredConversation } from "../../../src/cluster/view/reads.ts";
import { ClusterView } from "../../../src/cluster/view/view.ts";
import type { EventState } from "../../../src/orchestrator/routing/event-state.ts";
import type { Message } from "../../../src/protocol/conversation.ts";
import type { StoredRuntimeEvent } from "../../../src/store/store.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();

const message = (text: string) => ({ id: text, role: "user", content: text }) as unknown as Message;

interface HostOptions {
  conversation?: StoredConversation;
  hang?: boolean;
  queries?: NodeEventQuery[];
  eventState?: EventState;
  asked?: string[];
  /** A store of this many events (one per second from `second`), read as a store reads them; default: one per query. */
  events?: { count: number; second: number };
  /** Rows of this many bytes each in the instance table. */
  rowBytes?: number;
}

/** A store's answer: the events after `after`, the newest `limit` of them, oldest first. */
function storedEvents(
  name: string,
  store: { count: number; second: number },
  query: NodeEventQuery,
): StoredRuntimeEvent[] {
  const all = Array.from({ length: store.count }, (_, i) => ({
    cursor: i + 1,
    event: {
      type: "turn.started" as const,
      at: new Date(Date.UTC(2026, 10, 25, 10, 0, store.second + i * 2)).toISOString(),
      agent: "worker",
      instanceKey: "k",
      traceId: "t".repeat(32),
      spanId: `${name}-${i}`,
      data: { pad: "p".repeat(200) },
    },
  })).filter((row) => row.cursor > (query.after ?? 0));
  return query.limit === undefined ? all : all.slice(-query.limit);
}

function host(name: string, options: HostOptions = {}): ReadHost {
  const wait = async () => {
    if (options.hang) await new Promise(() => undefined);
  };
  return {
    processes: () => [],
    instances: async () => {
      await wait();
      return [
        {
          agent: "worker",
          instanceKey: `on-${name}${options.rowBytes ? "x".repeat(options.rowBytes) : ""}`,
          status: "idle",
          queued: 0,
        },
      ];
    },
    runtimeEvents: async (query) => {
      options.queries?.push(query);
      if (options.events) return storedEvents(name, options.events, query);
      const event = {
        type: "turn.started",
        at: `2026-11-25T10:00:0${name.slice(1)}.000Z`,
        agent: "worker",
        instanceKey: "k",
        traceId: "t".repeat(32),
        spanId: "s",
      } as const;
      return [{ cursor: (query.after ?? 0) + 1, event }] satisfies StoredRuntimeEvent[];
    },
    conversation: async () => {
      options.asked?.push("conversation");
      await wait();
      return options.conversation ?? { messages: [] };
    },
    eventState: async (eventId) => (options.eventState?.eventId === eventId ? options.eventState : undefined),
    approvals: { pending: async () => [], suspended: async () => [], get: async () => undefined },
    scheduled: async () => [],
  };
}

async function cluster(
  hosts: Record<string, ReadHost>,
  options: { owner?: string; members?: string[]; timeoutMs?: number; answerBytes?: number } = {},
) {
  const swarm = testSwarm("view");
  const views = new Map<string, ClusterView>();
  for (const [node, nodeHost] of Object.entries(hosts)) {
    const messenger = new ClusterMessenger<NodeReadApi>({ connection: await connectTest(defer, { node }), swarm });
    const view = new ClusterView({
      node,
      messenger,
      host: nodeHost,
      members: async () => options.members ?? Object.keys(hosts),
      owner: async () => options.owner,
      connected: () => true,
      runs: () => false,
      timeoutMs: options.timeoutMs ?? 2000,
      ...(options.answerBytes === undefined ? {} : { answerBytes: options.answerBytes }),
    });
    for (const served of await view.serve()) defer(() => served.stop());
    views.set(node, view);
  }
  return views.get("n1") as ClusterView;
}

describe.skipIf(!natsAvailable)("ClusterView on the local NATS", () => {
  it("reads a conversation from its lease holder, even when another node keeps a copy that looks fresher", async () => {
    const view = await cluster(
      {
        n1: host("n1"),
        n2: host("n2", { conversation: { messages: [message("a")], updatedAt: 100 } }),
        n3: host("n3", { conversation: { messages: [message("a"), message("stale")], updatedAt: 900 } }),
      },
      { owner: "n2" },
    );
    expect(await view.conversation("worker", "k")).toEqual({ node: "n2", messages: [message("a")], unanswered: [] });
  });

  it("reads the freshest copy when no node holds the lease, or when its holder is gone (and names it)", async () => {
    const hosts = {
      n1: host("n1", { conversation: { messages: [message("old")], updatedAt: 100 } }),
      n2: host("n2", { conversation: { messages: [message("old"), message("new")], updatedAt: 300 } }),
      n3: host("n3"),
    };
    expect((await (await cluster(hosts)).conversation("worker", "k")).node).toBe("n2");
    const gone = await cluster(hosts, { owner: "n4", members: ["n1", "n2", "n3", "n4"] });
    expect(await gone.conversation("worker", "k")).toEqual({
      node: "n2",
      messages: [message("old"), message("new")],
      unanswered: [{ node: "n4", status: "no_responders" }],
    });
  });

  it("does not wait twice for a holder that does not answer: the others' freshest copy serves, the holder named once", async () => {
    const asked: string[] = [];
    const hosts = {
      n1: host("n1"),
      n2: host("n2", { conversation: { messages: [message("kept")], updatedAt: 100 } }),
      n3: host("n3", { hang: true, asked, conversation: { messages: [message("newest")], updatedAt: 900 } }),
    };
    const view = await cluster(hosts, { owner: "n3", timeoutMs: 300 });
    const read = await view.conversation("worker", "k");
    expect(asked).toEqual(["conversation"]);
    expect(read).toEqual({ node: "n2", messages: [message("kept")], unanswered: [{ node: "n3", status: "timeout" }] });
  });

  it("asks each node from its own cursor and merges the answers in time order", async () => {
    const queries: Record<string, NodeEventQuery[]> = { n1: [], n2: [] };
    const view = await cluster({ n1: host("n1", { queries: queries.n1 }), n2: host("n2", { queries: queries.n2 }) });
    const page = await view.runtimeEvents({ agent: "worker", after: { n2: 40 }, limit: 5 });
    expect(queries.n1).toEqual([{ agent: "worker", limit: 5 }]);
    expect(queries.n2).toEqual([{ agent: "worker", after: 40, limit: 5 }]);
    expect(page.events.map((event) => event.node)).toEqual(["n1", "n2"]);
    expect(page.cursor).toEqual({ n1: 1, n2: 41 });
  });

  it("tells where an event stands from whichever node knows most of it", async () => {
    const answered = {
      eventId: "evt_1",
      state: "ok",
      status: "ok",
      agent: "worker",
      instanceKey: "k",
      response: "done",
    } as unknown as EventState;
    const view = await cluster({
      n1: host("n1"),
      n2: host("n2", { eventState: { eventId: "evt_1", state: "accepted" } }),
      n3: host("n3", { eventState: answered }),
    });
    expect(await view.eventState("evt_1")).toEqual({ state: { ...answered, node: "n3" }, unanswered: [] });
    expect(await view.eventState("evt_unknown")).toEqual({ unanswered: [] });
  });

  it("names a node that never answers as timed out, within the bound, and lists the others' instances", async () => {
    const view = await cluster({ n1: host("n1"), n2: host("n2"), n3: host("n3", { hang: true }) }, { timeoutMs: 300 });
    const started = performance.now();
    const table = await view.instances();
    expect(performance.now() - started).toBeLessThan(2000);
    expect(table.instances.map((row) => `${row.node} ${row.instanceKey}`)).toEqual(["n1 on-n1", "n2 on-n2"]);
    expect(table.unanswered).toEqual([{ node: "n3", status: "timeout" }]);
  });
});

describe.skipIf(!natsAvailable)("ClusterView answers that do not fit one NATS message", () => {
  it("brings a conversation larger than one answer in parts, whole and in order", async () => {
    const messages = Array.from({ length: 40 }, (_, i) => message(`m${i}-${"c".repeat(100)}`));
    const view = await cluster(
      { n1: host("n1"), n2: host("n2", { conversation: { messages, updatedAt: 5 } }) },
      { owner: "n2", answerBytes: 1500 },
    );
    expect(await view.conversation("worker", "k")).toEqual({ node: "n2", messages, unanswered: [] });
  });

  it("pages runtime events larger than one answer: every event once, in time order, across pages", async () => {
    const view = await cluster(
      { n1: host("n1", { events: { count: 30, second: 0 } }), n2: host("n2", { events: { count: 30, second: 1 } }) },
      { answerBytes: 4000 },
    );
    const seen: string[] = [];
    let after = {};
    let pages = 0;
    for (;;) {
      const page = await view.runtimeEvents({ after });
      seen.push(...page.events.map((event) => `${event.at} ${event.spanId}`));
      after = page.cursor;
      pages += 1;
      if (!page.more) break;
      expect(pages).toBeLessThan(100);
    }
    expect(pages).toBeGreaterThan(2);
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
    expect(seen).toEqual([...seen].sort());
  });

  it("keeps the newest events that fit when a limit asks for more than one answer holds", async () => {
    const view = await cluster(
      { n1: host("n1"), n2: host("n2", { events: { count: 30, second: 1 } }) },
      { answerBytes: 4000 },
    );
    const page = await view.runtimeEvents({ limit: 20 });
    const fromN2 = page.events.filter((event) => event.node === "n2").map((event) => event.spanId);
    expect(fromN2.length).toBeGreaterThan(0);
    expect(fromN2.length).toBeLessThan(20);
    expect(fromN2.at(-1)).toBe("n2-29");
  });

  it("refuses what cannot be cut (an instance table past the budget) and names the node, without waiting out the timeout", async () => {
    const view = await cluster({ n1: host("n1"), n2: host("n2", { rowBytes: 5000 }) }, { answerBytes: 4000 });
    const table = await view.instances();
    expect(table.instances.map((row) => row.node)).toEqual(["n1"]);
    expect(table.unanswered).toEqual([{ node: "n2", status: "refused" }]);
  });

  it("sends nothing past the real server's max_payload: a 2 MB table is refused, and the node keeps serving", async () => {
    const view = await cluster({ n1: host("n1"), n2: host("n2", { rowBytes: 2_000_000 }) }, { timeoutMs: 5000 });
    // Refused at once (a send past max_payload would throw in the server node and leave this read to time out).
    expect((await view.instances()).unanswered).toEqual([{ node: "n2", status: "refused" }]);
    expect((await view.runtimeEvents({})).unanswered).toEqual([]);
  });
});
