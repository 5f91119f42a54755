import { describe, expect, it } from "bun:test";
import { PendingRequests, type PendingRequest } from "../../../src/orchestrator/routing/pending-requests.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";

const request = (overrides: Partial<PendingRequest> = {}): PendingRequest => ({
  correlationId: "c1",
  requester: "a/k",
  agent: "b",
  instanceKey: "k",
  eventId: "e1",
  deadline: 1_700_000_001_000,
  ...overrides,
});

describe("PendingRequests", () => {
  it("keys a request by its requesting instance and correlationId", () => {
    const pending = new PendingRequests({ clock: new ManualClock(), onTimeout: () => {} });
    pending.add(request({ requester: "a/one" }));
    pending.add(request({ requester: "a/two", eventId: "e2" }));
    expect(pending.take({ requester: "a/two", correlationId: "c1" })?.eventId).toBe("e2");
    expect(pending.take({ requester: "a/two", correlationId: "c1" })).toBeUndefined();
    expect(pending.take({ requester: "a/one", correlationId: "c1" })?.eventId).toBe("e1");
  });

  it("times a request out once at its deadline and remembers it as expired", () => {
    const clock = new ManualClock(1_700_000_000_000);
    const timedOut: string[] = [];
    const pending = new PendingRequests({ clock, onTimeout: (expired) => timedOut.push(expired.correlationId) });
    pending.add(request());
    clock.advance(999);
    expect(timedOut).toEqual([]);
    clock.advance(1);
    expect(timedOut).toEqual(["c1"]);
    expect(pending.take({ requester: "a/k", correlationId: "c1" })).toBeUndefined();
    expect(pending.wasExpired({ requester: "a/k", correlationId: "c1" })).toBe(true);
    clock.advance(10_000);
    expect(timedOut).toEqual(["c1"]);
  });

  it("a request answered in time never times out", () => {
    const clock = new ManualClock(1_700_000_000_000);
    const pending = new PendingRequests({ clock, onTimeout: () => expect.unreachable("no timeout expected") });
    pending.add(request());
    pending.take({ requester: "a/k", correlationId: "c1" });
    clock.advance(5_000);
    expect(clock.pendingDelays()).toEqual([]);
  });
});
