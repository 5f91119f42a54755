import { afterEach, describe, expect, it, spyOn } from "bun:test";
import { DurableInbox, syncPolicyFor } from "../../../src/orchestrator/instances/durable-inbox.ts";
import { busyCaller, call, removeRoots, setup } from "../routing/routing-harness.ts";

afterEach(removeRoots);

describe("the inbox sync policy by event source", () => {
  it("fdatasyncs outside events, sends and async requests, and only writes requests their requester waits for", () => {
    const policy = (type: string, kind: "api" | "connector" | "user" | "agent", requesterWaits = true) => syncPolicyFor({ event: { type, source: { kind, name: "x" } }, requesterWaits });
    expect(policy("user.input", "api")).toBe("fdatasync");
    expect(policy("connector.event", "connector")).toBe("fdatasync");
    expect(policy("user.input", "user")).toBe("fdatasync");
    expect(policy("agent.send", "agent", false)).toBe("fdatasync");
    expect(policy("agent.request", "agent", false)).toBe("fdatasync");
    expect(policy("agent.request", "agent")).toBe("write");
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
      await call(a, "request", { target: "c", input: "later", async: true });
      expect(sync).toHaveBeenCalledTimes(2);
      s.orchestrator.submit({ input: "from outside", agent: "b" });
      expect(sync).toHaveBeenCalledTimes(3);
    } finally {
      sync.mockRestore();
    }
  });
});
