/**
 * On an ordered store (the embedded SQLite one) an agent request is handed to the callee's child before its inbox
 * insert, and the callee's answer to the requester before the write of that answer: both writes are applied in the
 * same synchronous block as the send, so nothing either child does with the message is handled before them. A
 * refused insert takes back an event that was not delivered yet.
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
  it("sends a request to the callee before its insert and the reply before the answer's write, and both are stored", async () => {
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
      "send event → b/test-swarm",
      "accept b",
      "send runtime_result → a/test-swarm",
    ]);
    expect((await sqlite.inboxRecord("test-swarm", request.id))?.event.input).toBe("question");
    timeline.length = 0;
    b.reply({ response: "answer" });
    expect(timeline).toEqual(["send delegate_result → a/test-swarm", "commit b answers"]);
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
});
