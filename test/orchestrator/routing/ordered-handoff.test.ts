/**
 * On an ordered store (the embedded SQLite one) an event is handed to a child only once its insert is committed, and
 * a turn's answer goes to the requester only once the turn's commit is: a write applied in its call can still be
 * refused at its commit (a full disk), and nothing that was not stored may run. Both are committed at once when a
 * child waits for them (Store.commitNow), so the hand-off still overlaps the sync. A refused insert is never
 * delivered, and the caller hears E_STORE_UNAVAILABLE.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Orchestrator } from "../../../src/orchestrator/orchestrator.ts";
import { SqliteStore } from "../../../src/store/sqlite/sqlite-store.ts";
import type { Store } from "../../../src/store/store.ts";
import { FakeSpawner } from "../../helpers/fake-spawner.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";
import { testBundle } from "../../fixtures/orchestrator/test-bundle.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** An orchestrator whose store and children write one timeline: `accept b`, `commit b answers`, `send event → b/...`. */
function setup(options: { refuseAccept?: (agent: string) => boolean } = {}) {
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-handoff-"));
  roots.push(stateRoot);
  const timeline: string[] = [];
  const sqlite = new SqliteStore(join(stateRoot, "goondan.db"));
  const recorded: Partial<Store> = {
    accept: (...args: Parameters<Store["accept"]>) => {
      timeline.push(`accept ${args[1].agent}`);
      if (options.refuseAccept?.(args[1].agent)) throw new Error("disk full");
      return sqlite.accept(...args);
    },
    commit: (...args: Parameters<Store["commit"]>) => {
      timeline.push(`commit ${args[0].agent}${args[2] ? " answers" : ""}`);
      return sqlite.commit(...args);
    },
  };
  const store = new Proxy(sqlite as Store, {
    get: (target, key) => {
      const own = recorded[key as keyof Store];
      if (own !== undefined) return own;
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const spawner = new FakeSpawner();
  spawner.onSent = (child, message) => void timeline.push(`send ${message.type} → ${child.address}`);
  const orchestrator = new Orchestrator({
    bundle: testBundle({ agents: ["a", "b"] }),
    stateRoot,
    spawner,
    clock: new ManualClock(),
    store,
  });
  return { orchestrator, spawner, timeline, sqlite };
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await Bun.sleep(0);
};

describe("ordered hand-off", () => {
  it("sends a request to the callee once its insert is committed and the reply once the answer's commit is", async () => {
    const { orchestrator, spawner, timeline, sqlite } = setup();
    orchestrator.submit({ input: "go", agent: "b" });
    const b = spawner.latest("b");
    b.ready();
    b.reply({ response: "warm" });
    orchestrator.submit({ input: "go", agent: "a" });
    const a = spawner.latest("a");
    a.ready();
    await settle();
    timeline.length = 0;
    a.emit("runtime_call", {
      callId: "r1",
      method: "request",
      args: { target: "b", input: "question", correlationId: "c1" },
      callChain: [],
    });
    await settle();
    const request = b.lastEvent();
    expect(timeline.slice(0, 3)).toEqual([
      "accept b",
      "send event → b/test-swarm",
      "send runtime_result → a/test-swarm",
    ]);
    expect((await sqlite.inboxRecord("test-swarm", request.id))?.event.input).toBe("question");
    timeline.length = 0;
    b.reply({ response: "answer" });
    await settle();
    expect(timeline).toEqual(["commit b answers", "send delegate_result → a/test-swarm"]);
    expect((await sqlite.inboxRecord("test-swarm", request.id))?.outcome).toMatchObject({
      status: "ok",
      response: "answer",
    });
    await sqlite.close();
  });

  it("takes back an event whose insert is refused while its instance is busy, and tells the requester", async () => {
    let refuse = false;
    const { orchestrator, spawner, sqlite } = setup({ refuseAccept: (agent) => refuse && agent === "b" });
    orchestrator.submit({ input: "busy", agent: "b" });
    const b = spawner.latest("b");
    b.ready();
    orchestrator.submit({ input: "go", agent: "a" });
    const a = spawner.latest("a");
    a.ready();
    await settle();
    refuse = true;
    a.emit("runtime_call", {
      callId: "r1",
      method: "request",
      args: { target: "b", input: "question", correlationId: "c1" },
      callChain: [],
    });
    await settle();
    const result = a.sent.find((message) => message.type === "runtime_result")?.payload as {
      ok: boolean;
      error?: { message: string };
    };
    expect(result).toMatchObject({ ok: false, error: { message: expect.stringContaining("disk full") } });
    refuse = false;
    b.reply({ response: "done" });
    await settle();
    expect(b.events().map((delivery) => delivery.event.input)).toEqual(["busy"]);
    expect(orchestrator.processes().find((process) => process.agent === "b")?.status).toBe("idle");
    await sqlite.close();
  });

  it("never delivers an event the store could not write (a full disk), answers E_STORE_UNAVAILABLE, and goes on once it can", async () => {
    const { orchestrator, spawner, sqlite } = setup();
    orchestrator.submit({ input: "warm", agent: "b" });
    const b = spawner.latest("b");
    b.ready();
    b.reply({ response: "warm" });
    await settle();
    // The database may not grow: an insert that needs a new page fails as a full disk does (SQLITE_FULL).
    const db = (sqlite as unknown as { db: { exec(sql: string): void; query(sql: string): { get(): unknown } } }).db;
    const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    db.exec(`PRAGMA max_page_count = ${pages}`);
    const refused = orchestrator.submit({ input: "x".repeat(200_000), agent: "b" });
    expect(
      await refused.accepted.then(
        () => "stored",
        (error: { code?: string }) => error.code,
      ),
    ).toBe("E_STORE_UNAVAILABLE");
    await settle();
    expect(b.events().map((delivery) => delivery.event.input)).toEqual(["warm"]);
    expect(await sqlite.inboxRecord("test-swarm", refused.eventId)).toBeUndefined();
    // Space frees: the next event is stored and runs, with no restart.
    db.exec("PRAGMA max_page_count = 1073741823");
    const next = orchestrator.submit({ input: "after", agent: "b" });
    await next.accepted;
    expect(b.lastEvent().input).toBe("after");
    b.reply({ response: "ok" });
    expect(await next.outcome).toMatchObject({ status: "ok", response: "ok" });
    expect(spawner.children.filter((child) => child.address === b.address)).toHaveLength(1);
    await sqlite.close();
  });
});
