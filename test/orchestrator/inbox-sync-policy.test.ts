import { afterEach, describe, expect, it, spyOn } from "bun:test";
import { DurableInbox, syncPolicyFor } from "../../src/orchestrator/durable-inbox.ts";
import { busyCaller, call, removeRoots, setup } from "./routing-harness.ts";

afterEach(removeRoots);

describe("the inbox sync policy by event source", () => {
  it("fdatasyncs outside events and sends, and only writes agent-to-agent requests", () => {
    expect(syncPolicyFor({ type: "user.input", source: { kind: "api", name: "api" } })).toBe("fdatasync");
    expect(syncPolicyFor({ type: "connector.event", source: { kind: "connector", name: "inbound" } })).toBe("fdatasync");
    expect(syncPolicyFor({ type: "user.input", source: { kind: "user", name: "cli" } })).toBe("fdatasync");
    expect(syncPolicyFor({ type: "agent.send", source: { kind: "agent", name: "a" } })).toBe("fdatasync");
    expect(syncPolicyFor({ type: "agent.request", source: { kind: "agent", name: "a" } })).toBe("write");
  });

  it("acknowledges an agent request without an fdatasync, yet with its accept record in the journal", async () => {
    const s = setup();
    const { a } = busyCaller(s);
    const sync = spyOn(DurableInbox.prototype, "sync");
    try {
      const accepted = await call(a, "request", { target: "b", input: "q" });
      expect(accepted.ok).toBe(true);
      expect(sync).not.toHaveBeenCalled();
      const written = new DurableInbox(s.orchestrator.instancePaths("b", "test-swarm").inbox).load().entries;
      expect(written.map((entry) => entry.event.input)).toEqual(["q"]);
      await call(a, "send", { target: "c", input: "fyi" });
      expect(sync).toHaveBeenCalledTimes(1);
      s.orchestrator.submit({ input: "from outside", agent: "b" });
      expect(sync).toHaveBeenCalledTimes(2);
    } finally {
      sync.mockRestore();
    }
  });
});
