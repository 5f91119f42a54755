import { afterEach, describe, expect, it } from "bun:test";
import { appendFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DurableInbox, findInboxDirs, JOURNAL_FILE } from "../../../src/orchestrator/instances/durable-inbox.ts";
import { instancePaths } from "../../../src/shared/state-paths.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import { reply as replyOf } from "../../helpers/outcomes.ts";

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
  it("keeps accepted events until they are removed, in acceptance order", () => {
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
    expect(loaded).toMatchObject({ crashes: 2, deliveries: 2, acceptedAt: 1 });
    expect(loaded?.lastCrash).toBeUndefined();
  });

  it("persists how the entry last crashed, and forgets it when a later record has none", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir);
    const entry = inbox.accept({ event: event("evt_a"), now: 1 });
    entry.crashes = 1;
    entry.lastCrash = "it was killed by SIGSEGV";
    inbox.update(entry);
    expect(new DurableInbox(dir).load().entries[0]).toMatchObject({ crashes: 1, lastCrash: "it was killed by SIGSEGV" });
    delete entry.lastCrash;
    inbox.update(entry);
    expect(new DurableInbox(dir).load().entries[0]?.lastCrash).toBeUndefined();
  });

  it("skips a torn last line (never acknowledged) and reports it", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir);
    inbox.accept({ event: event("evt_ok"), now: 1 });
    appendFileSync(join(dir, JOURNAL_FILE), '{"op":"accept","event":{"id":"evt_to');
    const loaded = new DurableInbox(dir).load();
    expect(loaded.entries.map((entry) => entry.event.id)).toEqual(["evt_ok"]);
    expect(loaded.unreadable).toBe(1);
  });

  it("keeps a small journal when nothing is unanswered (no truncate per answered event), replaying nothing from it", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir);
    inbox.remove(inbox.accept({ event: event("evt_1"), now: 1 }));
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBeGreaterThan(0);
    expect(new DurableInbox(dir).load().entries).toEqual([]);
  });

  it("empties the journal once nothing is unanswered and it is past truncateBytes", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir, { truncateBytes: 0 });
    const one = inbox.accept({ event: event("evt_1"), now: 1 });
    const two = inbox.accept({ event: event("evt_2"), now: 1 });
    inbox.remove(one);
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBeGreaterThan(0);
    inbox.remove(two);
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBe(0);
    inbox.accept({ event: event("evt_3"), now: 2 });
    expect(new DurableInbox(dir).load().entries.map((entry) => entry.event.id)).toEqual(["evt_3"]);
  });

  it("an inbox that loaded the journal removes what it loaded", () => {
    const dir = join(tempDir(), "inbox");
    new DurableInbox(dir).accept({ event: event("evt_old"), now: 1 });
    const reopened = new DurableInbox(dir);
    const [entry] = reopened.load().entries;
    reopened.remove(entry!);
    expect(new DurableInbox(dir).load().entries).toEqual([]);
  });

  it("loads nothing from a directory that does not exist", () => {
    expect(new DurableInbox(join(tempDir(), "missing")).load()).toEqual({ entries: [], replies: [], unreadable: 0 });
  });

  it("keeps a held reply until it is released, with its deadline (none: Infinity), through compaction too", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir, { compactBytes: 2000 });
    const reply = (correlationId: string) => replyOf({ correlationId, agent: "b", instanceKey: "k", response: "done" });
    inbox.holdReply({ agent: "a", instanceKey: "k", reply: reply("corr_1"), deadline: 500 });
    inbox.holdReply({ agent: "a", instanceKey: "k", reply: reply("corr_2"), deadline: Number.POSITIVE_INFINITY });
    expect(new DurableInbox(dir).load().replies).toEqual([
      { agent: "a", instanceKey: "k", reply: reply("corr_1"), deadline: 500 },
      { agent: "a", instanceKey: "k", reply: reply("corr_2"), deadline: Number.POSITIVE_INFINITY },
    ]);
    inbox.releaseReply("corr_1");
    for (let i = 0; i < 20; i++) inbox.remove(inbox.accept({ event: event(`evt_${i}`, "x".repeat(100)), now: 2 }));
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBeLessThan(2000);
    const loaded = new DurableInbox(dir).load();
    expect(loaded.replies.map((held) => held.reply.correlationId)).toEqual(["corr_2"]);
    expect(loaded.entries).toEqual([]);
    inbox.releaseReply("corr_2");
    expect(new DurableInbox(dir).load().replies).toEqual([]);
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

describe("DurableInbox compaction", () => {
  it("rewrites a long journal with only the unanswered entries and their crash counts", () => {
    const dir = join(tempDir(), "inbox");
    const inbox = new DurableInbox(dir, { compactBytes: 2000 });
    const keep = inbox.accept({ event: event("evt_keep"), now: 1 });
    keep.crashes = 1;
    keep.lastCrash = "it exited with code 1";
    inbox.update(keep);
    for (let i = 0; i < 20; i++) inbox.remove(inbox.accept({ event: event(`evt_${i}`, "x".repeat(100)), now: 2 }));
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBeLessThan(2000);
    const after = inbox.accept({ event: event("evt_after"), now: 3 });
    const loaded = new DurableInbox(dir).load();
    expect(loaded.entries.map((entry) => [entry.event.id, entry.crashes, entry.lastCrash])).toEqual([["evt_keep", 1, "it exited with code 1"], ["evt_after", 0, undefined]]);
    inbox.remove(keep);
    inbox.remove(after);
    expect(new DurableInbox(dir).load().entries).toEqual([]);
  });
});
