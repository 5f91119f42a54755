/**
 * On an ordered store (the embedded SQLite one) an event goes to an idle child, and a turn's answer to its
 * requester, just before the commit that stores it, made at once behind the hand-over (Store.commitNow): the hop does
 * not wait for the commit, and nothing the child says is heard before it. A write applied in its call can still be
 * refused at its commit (a full disk): the caller hears E_STORE_UNAVAILABLE, and a child that was handed what the
 * store refused has nothing more of its turn stored or run, so the turn runs again from the store. A refused insert
 * of an event that waits behind a busy instance is never delivered.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Orchestrator } from "../../../src/orchestrator/orchestrator.ts";
import { STORE_FAULT_EXIT_CODE } from "../../../src/protocol/ipc-messages.ts";
import { SqliteStore } from "../../../src/store/sqlite/sqlite-store.ts";
import type { Store } from "../../../src/store/store.ts";
import { FakeSpawner } from "../../helpers/fake-spawner.ts";
import { fillDisk } from "../../helpers/full-disk.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";
import { testBundle } from "../../fixtures/orchestrator/test-bundle.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** An orchestrator whose store and children write one timeline: `accept b`, `commit b answers`, `COMMIT`, `send ...`. */
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
    commitNow: () => {
      timeline.push("COMMIT");
      sqlite.commitNow();
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
  const clock = new ManualClock();
  spawner.onSent = (child, message) => void timeline.push(`send ${message.type} → ${child.address}`);
  const orchestrator = new Orchestrator({
    bundle: testBundle({ agents: ["a", "b"] }),
    stateRoot,
    spawner,
    clock,
    store,
  });
  return { orchestrator, spawner, timeline, sqlite, clock };
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await Bun.sleep(0);
};

describe("ordered hand-off", () => {
  it("hands a request to the idle callee, and its reply to the requester, just before the commit that stores each", async () => {
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
    expect(timeline.slice(0, 4)).toEqual([
      "accept b",
      "send event → b/test-swarm",
      "COMMIT",
      "send runtime_result → a/test-swarm",
    ]);
    expect((await sqlite.inboxRecord("test-swarm", request.id))?.event.input).toBe("question");
    timeline.length = 0;
    b.reply({ response: "answer" });
    await settle();
    expect(timeline.slice(0, 3)).toEqual(["commit b answers", "send delegate_result → a/test-swarm", "COMMIT"]);
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

  it("answers E_STORE_UNAVAILABLE for an event refused at its commit after the hand-over, stores and runs nothing of it, and goes on once it can", async () => {
    const { orchestrator, spawner, sqlite, clock } = setup();
    orchestrator.submit({ input: "warm", agent: "b" });
    const b = spawner.latest("b");
    b.ready();
    b.reply({ response: "warm" });
    await settle();
    // An insert that needs new pages fails at its commit, as on a full disk (SQLITE_FULL).
    const disk = fillDisk(sqlite);
    const refused = orchestrator.submit({ input: "x".repeat(200_000), agent: "b" });
    expect(
      await refused.accepted.then(
        () => "stored",
        (error: { code?: string }) => error.code,
      ),
    ).toBe("E_STORE_UNAVAILABLE");
    await settle();
    expect(await sqlite.inboxRecord("test-swarm", refused.eventId)).toBeUndefined();
    // The idle child had it already (handed over before the commit): whatever its turn asks is refused, unstored.
    expect(b.events()).toHaveLength(2);
    disk.free();
    b.emit("commit", { seq: 1, changes: { append: [{ id: "m1", role: "user", content: "x" }] } } as never);
    b.emit("runtime_call", { callId: "r1", method: "request", args: { target: "a", input: "q" }, callChain: [] });
    await settle();
    expect(b.sent.find((message) => message.type === "committed")?.payload).toMatchObject({
      seq: 1,
      error: { code: "E_STORE_UNAVAILABLE" },
    });
    expect(b.sent.find((message) => message.type === "runtime_result")?.payload).toMatchObject({
      ok: false,
      error: { code: "E_STORE_UNAVAILABLE" },
    });
    expect(spawner.children.filter((child) => child.address === "a/test-swarm")).toHaveLength(0);
    // Its turn ends unsaved (the child exits on the refused step, as a real one does): the event is not run again.
    b.exit({ code: STORE_FAULT_EXIT_CODE, signal: null });
    await settle();
    const state = await sqlite.instanceState({ swarm: "test-swarm", agent: "b", instanceKey: "test-swarm" });
    expect(JSON.stringify(state.messages)).not.toContain("xxxxxxxx");
    const next = orchestrator.submit({ input: "after", agent: "b" });
    await next.accepted;
    await settle();
    clock.advance(60_000);
    await settle();
    const again = spawner.latest("b");
    expect(again).not.toBe(b);
    again.ready();
    await settle();
    expect(again.events().map((delivery) => delivery.event.input)).toEqual(["after"]);
    again.reply({ response: "ok" });
    expect(await next.outcome).toMatchObject({ status: "ok", response: "ok" });
    await sqlite.close();
  });

  it("hands a reply on before the answering turn's commit; refused, the requester's turn stores nothing and runs again", async () => {
    const { orchestrator, spawner, sqlite, clock } = setup();
    orchestrator.submit({ input: "go", agent: "a" });
    const a = spawner.latest("a");
    a.ready();
    await settle();
    a.emit("runtime_call", {
      callId: "r1",
      method: "request",
      args: { target: "b", input: "question", correlationId: "c1" },
      callChain: [],
    });
    await settle();
    const b = spawner.latest("b");
    b.ready();
    await settle();
    const disk = fillDisk(sqlite);
    b.reply({ response: "y".repeat(200_000) });
    await settle();
    // a had the reply before the commit was refused: from now on nothing of its turn is stored.
    expect(a.sent.filter((message) => message.type === "delegate_result")).toHaveLength(1);
    expect(b.kills).toContain("SIGKILL");
    disk.free();
    a.emit("commit", { seq: 1, changes: { append: [{ id: "a1", role: "assistant", content: "z" }] } } as never);
    await settle();
    expect(a.sent.find((message) => message.type === "committed")?.payload).toMatchObject({
      error: { code: "E_STORE_UNAVAILABLE" },
    });
    a.reply({ response: "done with the unsaved answer" });
    await settle();
    expect(a.kills).toContain("SIGKILL");
    // a's event runs again on a new child, and b's request runs again too: nothing of either turn was stored.
    const state = await sqlite.instanceState({ swarm: "test-swarm", agent: "a", instanceKey: "test-swarm" });
    expect(JSON.stringify(state.messages)).not.toContain("unsaved answer");
    clock.advance(60_000);
    await settle();
    const a2 = spawner.latest("a");
    const b2 = spawner.latest("b");
    expect(a2).not.toBe(a);
    expect(b2).not.toBe(b);
    a2.ready();
    b2.ready();
    await settle();
    expect(a2.events().map((delivery) => delivery.event.input)).toEqual(["go"]);
    expect(b2.events().map((delivery) => delivery.event.input)).toEqual(["question"]);
    expect(spawner.violations).toEqual([]);
    await sqlite.close();
  });
});
