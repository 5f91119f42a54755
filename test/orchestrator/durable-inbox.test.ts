import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DurableInbox, findInboxDirs } from "../../src/orchestrator/durable-inbox.ts";
import { instancePaths } from "../../src/shared/state-paths.ts";
import type { AgentEvent } from "../../src/ipc/protocol.ts";

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "goondan-inbox-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const event = (id: string, input = "hi"): AgentEvent => ({
  id,
  type: "user.input",
  input,
  agent: "a",
  instanceKey: "k",
  source: { kind: "api", name: "api" },
  traceId: "t",
  callChain: [],
  metadata: {},
  createdAt: new Date(0).toISOString(),
});

describe("DurableInbox", () => {
  it("keeps accepted events on disk until they are removed, in acceptance order", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir);
    const first = inbox.accept({ event: event("evt_2"), now: 5 });
    inbox.accept({ event: event("evt_1"), now: 5 });
    const third = inbox.accept({ event: event("evt_0"), now: 6 });
    expect(new DurableInbox(dir).load().entries.map((entry) => entry.event.id)).toEqual(["evt_2", "evt_1", "evt_0"]);
    inbox.remove(first);
    inbox.remove(third);
    expect(new DurableInbox(dir).load().entries.map((entry) => entry.event.id)).toEqual(["evt_1"]);
  });

  it("persists the crash count of an entry", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir);
    const entry = inbox.accept({ event: event("evt_a"), now: 1 });
    entry.crashes = 2;
    inbox.update(entry);
    const [loaded] = new DurableInbox(dir).load().entries;
    expect(loaded?.crashes).toBe(2);
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("skips a torn file and reports it as unreadable", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir);
    inbox.accept({ event: event("evt_ok"), now: 1 });
    writeFileSync(join(dir, "000000000000002-000001-evt_torn.json"), '{"event": {"id": "evt_to');
    const loaded = new DurableInbox(dir).load();
    expect(loaded.entries.map((entry) => entry.event.id)).toEqual(["evt_ok"]);
    expect(loaded.unreadable).toEqual(["000000000000002-000001-evt_torn.json"]);
  });

  it("loads nothing from a directory that does not exist", () => {
    expect(new DurableInbox(join(tempDir(), "missing")).load()).toEqual({ entries: [], unreadable: [] });
  });

  it("removing an entry twice is harmless", () => {
    const inbox = new DurableInbox(join(tempDir(), "inbox"));
    const entry = inbox.accept({ event: event("evt_x"), now: 1 });
    inbox.remove(entry);
    expect(() => inbox.remove(entry)).not.toThrow();
  });
});

describe("findInboxDirs", () => {
  it("finds every instance's inbox directory of a swarm", () => {
    const stateRoot = tempDir();
    const one = instancePaths({ stateRoot, swarmInstanceKey: "s/1", agent: "a", instanceKey: "k:1" }).inbox;
    const two = instancePaths({ stateRoot, swarmInstanceKey: "s/1", agent: "b", instanceKey: "k" }).inbox;
    new DurableInbox(one).accept({ event: event("evt_1"), now: 1 });
    new DurableInbox(two).accept({ event: event("evt_2"), now: 1 });
    expect(findInboxDirs({ stateRoot, swarmInstanceKey: "s/1" }).sort()).toEqual([one, two].sort());
    expect(findInboxDirs({ stateRoot, swarmInstanceKey: "other" })).toEqual([]);
  });
});
