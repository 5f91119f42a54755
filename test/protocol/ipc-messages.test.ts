/**
 * A child's message carries the messages made before it in `ahead` (one write instead of several); the receiver
 * (process-spawner.ts) handles them first, in order, each checked as any child message is.
 */
import { describe, expect, it } from "bun:test";
import { childMessagesIn, envelope, ORCHESTRATOR } from "../../src/protocol/ipc-messages.ts";

const from = "worker/k1";
const started = envelope("turn_started", from, ORCHESTRATOR, { eventId: "e1", turnId: "t1" });
const events = envelope("runtime_events", from, ORCHESTRATOR, { events: [] });
const commit = envelope("commit", from, ORCHESTRATOR, { seq: 1 });

describe("childMessagesIn", () => {
  it("gives a message alone as it is", () => {
    expect(childMessagesIn(commit)).toEqual({ messages: [commit], invalid: [] });
  });

  it("gives the messages riding ahead first, in order, then the message without them", () => {
    const { messages, invalid } = childMessagesIn({ ...commit, ahead: [started, events] });
    expect(messages).toEqual([started, events, commit]);
    expect(messages.at(-1)).not.toHaveProperty("ahead");
    expect(invalid).toEqual([]);
  });

  it("refuses what is not a child message, ahead or not, and keeps the rest", () => {
    const parentMessage = envelope("committed", ORCHESTRATOR, from, { seq: 1 });
    const nested = { ...events, ahead: [started] };
    const { messages, invalid } = childMessagesIn({ ...commit, ahead: [parentMessage, "junk", nested, started] });
    expect(messages).toEqual([started, commit]);
    expect(invalid).toEqual([parentMessage, "junk", nested]);
    expect(childMessagesIn({ type: "nonsense" })).toEqual({ messages: [], invalid: [{ type: "nonsense" }] });
  });
});
