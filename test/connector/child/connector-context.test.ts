import { describe, expect, it } from "bun:test";
import { createConnectorContext } from "../../../src/connector/child/connector-context.ts";
import { findStartFunction } from "../../../src/connector/entry.ts";
import type { JsonValue } from "../../../src/shared/json.ts";
import { outcome } from "../../helpers/outcomes.ts";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const start = {
  connector: "webhook",
  connection: "hooks",
  entry: "/x.ts",
  config: { port: 1 },
  secrets: { TOKEN: "t" },
};
const event = { name: "ping", message: { type: "text" as const, text: "hi" }, properties: {} };

function setup() {
  const sent: { requestId: string; event: JsonValue; wantsReply: boolean; wantsProgress?: boolean }[] = [];
  const host = createConnectorContext({ start, logger: quiet, send: (payload) => void sent.push(payload) });
  return { host, sent };
}

describe("createConnectorContext", () => {
  it("hands the Connection's config and secrets to the connector", () => {
    const { host } = setup();
    expect(host.context.config).toEqual({ port: 1 });
    expect(host.context.secrets).toEqual({ TOKEN: "t" });
    expect(host.context.connection).toBe("hooks");
  });

  it("resolves emit with the eventId once the orchestrator acks the event", async () => {
    const { host, sent } = setup();
    const emitted = host.context.emit(event);
    expect(sent).toEqual([{ requestId: "c1", event, wantsReply: false }]);
    host.handle("connector_ack", { requestId: "c1", accepted: true, eventId: "evt_9" });
    expect(await emitted).toEqual({ eventId: "evt_9" });
  });

  it("rejects emit with the refusal's code", async () => {
    const { host } = setup();
    const emitted = host.context.emit(event);
    host.handle("connector_ack", {
      requestId: "c1",
      accepted: false,
      error: { code: "E_CONNECTOR_NO_ROUTE", message: "no rule" },
    });
    await expect(emitted).rejects.toMatchObject({ code: "E_CONNECTOR_NO_ROUTE" });
  });

  it("asks for progress only with onProgress, hands each record to it until the reply, and survives a throwing listener", async () => {
    const { host, sent } = setup();
    const seen: string[] = [];
    void host.context.request(event);
    expect(sent[0]?.wantsProgress).toBeUndefined();
    const asked = host.context.request(event, {
      onProgress: (progress) => {
        if (progress.kind !== "tool") return;
        seen.push(`${progress.phase} ${progress.agent} ${progress.name}`);
        if (progress.phase === "ended") throw new Error("a listener bug");
      },
    });
    expect(sent[1]?.wantsProgress).toBe(true);
    const progress = {
      kind: "tool" as const,
      agent: "worker",
      instanceKey: "k",
      traceId: "t",
      turnId: "turn",
      name: "bash__exec",
      toolCallId: "call",
    };
    host.handle("connector_ack", { requestId: "c2", accepted: true, eventId: "evt_2" });
    host.handle("connector_progress", { requestId: "c2", progress: { ...progress, phase: "started" } });
    host.handle("connector_progress", { requestId: "c2", progress: { ...progress, phase: "ended", status: "ok" } });
    host.handle("connector_reply", { requestId: "c2", ...outcome({ eventId: "evt_2", response: "done" }) });
    expect((await asked).response).toBe("done");
    host.handle("connector_progress", { requestId: "c2", progress: { ...progress, phase: "started" } });
    expect(seen).toEqual(["started worker bash__exec", "ended worker bash__exec"]);
  });

  it("resolves request with the turn's reply, not with the ack", async () => {
    const { host, sent } = setup();
    let settled = false;
    const asked = host.context.request(event).then((reply) => {
      settled = true;
      return reply;
    });
    expect(sent[0]?.wantsReply).toBe(true);
    host.handle("connector_ack", { requestId: "c1", accepted: true, eventId: "evt_1" });
    await Promise.resolve();
    expect(settled).toBe(false);
    host.handle("connector_reply", { requestId: "c1", ...outcome({ eventId: "evt_1", response: "pong" }) });
    expect(await asked).toEqual(outcome({ eventId: "evt_1", response: "pong" }));
  });

  it("on shutdown aborts the signal, fails waiting events, runs cleanup and refuses new emits", async () => {
    const { host } = setup();
    const cleaned: string[] = [];
    host.context.onShutdown(() => void cleaned.push("server closed"));
    const waiting = host.context.request(event);
    await host.shutdown("stop");
    expect(host.context.signal.aborted).toBe(true);
    expect(cleaned).toEqual(["server closed"]);
    await expect(waiting).rejects.toMatchObject({ code: "E_CONNECTOR_STOPPED" });
    await expect(host.context.emit(event)).rejects.toMatchObject({ code: "E_CONNECTOR_STOPPED" });
  });
});

describe("findStartFunction", () => {
  it("accepts a default export function, a start export, or a default object with start", () => {
    const fn = async () => {};
    expect(findStartFunction({ default: fn })).toBe(fn);
    expect(findStartFunction({ start: fn, default: () => {} })).toBe(fn);
    expect(typeof findStartFunction({ default: { start: fn } })).toBe("function");
    expect(findStartFunction({ handlers: {} })).toBeUndefined();
  });
});
