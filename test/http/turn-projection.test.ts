/**
 * TurnProjection (src/http/turn-projection.ts), the positions of one event's stream: a turn is played live (stored
 * events and streamed text in the order the orchestrator hands them, the last text of a call after its events, a
 * retried call, a redelivery), and from every position the live stream sent, a projection resumed from the store
 * alone gives the client exactly what it lacks: the tool messages after it once each, and text that makes the reply
 * with no gap and no double. Positions only grow, and the last one is the same live and from the store.
 */
import { describe, expect, it } from "bun:test";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import type { StoredRuntimeEvent } from "../../src/store/store.ts";
import type { ApiBackend } from "../../src/http/api-backend.ts";
import { comparePositions, type StreamPosition } from "../../src/http/stream-position.ts";
import { type TurnMessage, TurnProjection } from "../../src/http/turn-projection.ts";

const EVENT = "evt_1";
const backend = { orchestrator: { messages: async () => [] } } as unknown as ApiBackend;

const base = { at: "2026-11-28T00:00:00.000Z", agent: "a", instanceKey: "k", traceId: "t", spanId: "s" };
const own = (type: RuntimeEvent["type"], data?: RuntimeEvent["data"]): RuntimeEvent => ({
  ...base,
  type,
  turnId: "u",
  eventId: EVENT,
  ...(data === undefined ? {} : { data }),
});
const tool = (type: RuntimeEvent["type"], callId: string): RuntimeEvent => ({
  ...base,
  agent: "b",
  type,
  turnId: "w",
  eventId: "evt_worker",
  toolName: "x__y",
  toolCallId: callId,
});

type Step = { stored: RuntimeEvent } | { delta: string } | { restarted: "retry" | "redelivered" };

/** A turn: a streamed call, a tool, a retried call whose last text comes after its events, a crash and a re-run. */
const TURN: Step[] = [
  { stored: own("turn.started") },
  { delta: "Let me " },
  { delta: "look." },
  { stored: own("model.completed", { streamed: true, output: { text: "Let me look." } }) },
  { stored: tool("tool.called", "c1") },
  { stored: tool("tool.completed", "c1") },
  { delta: "Half" },
  { stored: own("model.retried") },
  { restarted: "retry" },
  { delta: "Found " },
  { stored: own("model.completed", { streamed: true, output: { text: "Found it." } }) },
  { delta: "it." },
  { stored: own("turn.started") },
  { restarted: "redelivered" },
  { stored: tool("tool.called", "c2") },
  { stored: own("model.completed", { streamed: false, output: { text: "Again: found it." } }) },
  { stored: own("turn.completed", { finishReason: "stop" }) },
];

type Sent = { message: TurnMessage; position: StreamPosition };

async function playLive(): Promise<{ sent: Sent[]; rows: StoredRuntimeEvent[]; end: StreamPosition }> {
  const sent: Sent[] = [];
  const rows: StoredRuntimeEvent[] = [];
  const projection = new TurnProjection({
    backend,
    eventId: EVENT,
    start: 0,
    emit: (message, position) => void sent.push({ message, position }),
  });
  for (const step of TURN) {
    if ("stored" in step) {
      const row = { cursor: rows.length + 1, event: step.stored };
      rows.push(row);
      await projection.stored(row);
    } else if ("delta" in step) await projection.live({ kind: "delta", text: step.delta });
    else await projection.live({ kind: "restarted", reason: step.restarted });
  }
  return { sent, rows, end: projection.endPosition };
}

async function resume(rows: StoredRuntimeEvent[], from: StreamPosition) {
  const sent: Sent[] = [];
  const projection = new TurnProjection({
    backend,
    eventId: EVENT,
    start: 0,
    resumeAt: from,
    emit: (message, position, silent) => {
      if (!silent && comparePositions(position, from) > 0) sent.push({ message, position });
    },
  });
  for (const row of rows) await projection.stored(row);
  return { sent, end: projection.endPosition };
}

/** The client's text after `messages`: each `restarted` voids what came before. */
function textOf(messages: TurnMessage[], held = ""): string {
  let text = held;
  for (const message of messages) {
    if (message.kind === "restarted") text = "";
    if (message.kind === "delta") text += message.text;
  }
  return text;
}

const tools = (sent: Sent[]) =>
  sent.flatMap(({ message }) =>
    message.kind === "tool" ? [`${message.progress.toolCallId} ${message.progress.phase}`] : [],
  );

describe("TurnProjection", () => {
  it("streams live with growing positions and ends one past the text", async () => {
    const { sent, end } = await playLive();
    const positions = sent.map(({ position }) => position);
    expect(positions.every((at, index) => index === 0 || comparePositions(at, positions[index - 1]!) > 0)).toBe(true);
    expect(comparePositions(end, positions.at(-1)!)).toBeGreaterThan(0);
    expect(textOf(sent.map(({ message }) => message))).toBe("Again: found it.");
    expect(sent.filter(({ message }) => message.kind === "restarted").map(({ message }) => message)).toEqual([
      { kind: "restarted", reason: "retry" },
      { kind: "restarted", reason: "redelivered" },
    ]);
    expect(tools(sent)).toEqual(["c1 started", "c1 ended", "c2 started"]);
  });

  it("resumed from the store at any position it sent, gives exactly what the client lacks and ends at the same position", async () => {
    const { sent, rows, end } = await playLive();
    for (let index = 0; index < sent.length; index++) {
      const had = sent.slice(0, index + 1);
      const rest = await resume(rows, sent[index]!.position);
      const messages = [...had, ...rest.sent].map(({ message }) => message);
      expect(textOf(messages)).toBe("Again: found it.");
      expect(tools([...had, ...rest.sent])).toEqual(["c1 started", "c1 ended", "c2 started"]);
      expect(rest.end).toEqual(end);
    }
  });

  it("resumed from the start sends every call's text whole; with the last message's id, nothing", async () => {
    const { rows, end } = await playLive();
    const whole = await resume(rows, { cursor: 0, offset: 0 });
    expect(whole.sent.filter(({ message }) => message.kind === "delta").map(({ message }) => message)).toEqual([
      { kind: "delta", text: "Let me look." },
      { kind: "delta", text: "Found it." },
      { kind: "delta", text: "Again: found it." },
    ]);
    expect((await resume(rows, end)).sent).toEqual([]);
    expect(whole.end).toEqual(end);
  });
});
