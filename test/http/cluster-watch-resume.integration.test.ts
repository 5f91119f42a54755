/**
 * A cluster watch resumed with `Last-Event-ID`, over two real `goondan run --cluster` nodes on the local NATS, read
 * with the typed client: every event of `GET /v1/watch` on n1 carries the cluster cursor after it (each node's stored
 * position); a watch read part-way and dropped, opened again with its last id after more jobs ran on both nodes,
 * goes on with no gap and no double: the two together are every event the nodes stored, once each, and each node's
 * events come in its store's order.
 */
import { describe, expect, it } from "bun:test";
import { createClient, type WatchEvent } from "../../src/client/index.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { natsAvailable } from "../helpers/nats.ts";
import { ask, clusterSwarm } from "../cluster/cluster-swarm.ts";

const defer = useCleanups();

type Runtime = Extract<WatchEvent, { type: "runtime" }>;
const keyOf = (item: Runtime) => JSON.stringify(item.event);

/** Every event the cluster stores, paged through `GET /v1/runtime-events` from the start. */
async function storedEvents(base: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  for (;;) {
    const page = (await (await fetch(`${base}/v1/runtime-events?after=${encodeURIComponent(cursor)}`)).json()) as {
      events: unknown[];
      cursor: string;
      more?: boolean;
    };
    keys.push(...page.events.map((event) => JSON.stringify(event)));
    if (page.more !== true || page.cursor === cursor) return keys;
    cursor = page.cursor;
  }
}

/** Runs `count` jobs through n1, each on its own coordinator (the cluster places them on both nodes). */
async function jobs(base: string, from: number, count: number): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => ask(base, { input: `job-${from + i}`, instanceKey: `r-${from + i}` })),
  );
  expect(answers.map((answer) => answer.status)).toEqual(Array(count).fill(200));
}

describe.skipIf(!natsAvailable)("a cluster watch resumed with Last-Event-ID", () => {
  it("goes on after the last id with every stored event of both nodes once, each node's in its store's order", async () => {
    const cluster = await clusterSwarm(defer, { label: "watch-resume", workers: 12 });
    const n1 = await cluster.startNode("n1");
    await cluster.startNode("n2");
    await jobs(n1.base, 0, 6);

    // A watch from the start, read part-way, then dropped.
    const client = createClient({ baseUrl: n1.base });
    const firstAbort = new AbortController();
    defer(() => firstAbort.abort());
    const first: Runtime[] = [];
    const firstWatch = client.watch({ after: 0, signal: firstAbort.signal, reconnect: false });
    for await (const item of firstWatch) {
      if (item.type !== "runtime") continue;
      first.push(item);
      if (first.length === 20) break;
    }
    const lastEventId = firstWatch.lastEventId;
    expect(lastEventId).toMatch(/^n\d:\d+(,n\d:\d+)*$/);
    expect(first.at(-1)?.id).toBe(lastEventId as string);

    // More jobs while no watch is open; then the watch goes on from its last id.
    await jobs(n1.base, 6, 6);
    const stored = await storedEvents(n1.base);
    expect(new Set(stored.map((key) => (JSON.parse(key) as { node: string }).node))).toEqual(new Set(["n1", "n2"]));
    const secondAbort = new AbortController();
    defer(() => secondAbort.abort());
    const second: Runtime[] = [];
    void (async () => {
      try {
        for await (const item of client.watch({ lastEventId, signal: secondAbort.signal, reconnect: false }))
          if (item.type === "runtime") second.push(item);
      } catch {
        // aborted at the end
      }
    })();
    await until(() => first.length + second.length >= stored.length, { timeoutMs: 60_000 });
    secondAbort.abort();

    const together = [...first, ...second];
    // No double, no gap: exactly the stored events.
    expect(together.length).toBe(stored.length);
    expect(new Set(together.map(keyOf))).toEqual(new Set(stored));
    // Each node's positions grow with its events, in the ids.
    for (const node of ["n1", "n2"]) {
      const positions = together
        .filter((item) => (item.event as { node?: string }).node === node)
        .map((item) => Number(new RegExp(`(?:^|,)${node}:(\\d+)`).exec(item.id ?? "")?.[1]));
      expect(positions.every((position, index) => index === 0 || position > (positions[index - 1] as number))).toBe(
        true,
      );
    }
  }, 240_000);
});
