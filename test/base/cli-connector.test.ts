import { describe, expect, it } from "bun:test";
import { PassThrough } from "node:stream";
import { formatReply, runCliLoop } from "../../src/base/connectors/cli.ts";
import { toolLine, TurnStatus, type Spinner } from "../../src/connector/turn-status.ts";
import type {
  ConnectorEvent,
  ConnectorReply,
  ConnectorRequestOptions,
  ToolProgress,
} from "../../src/connector/connector-types.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { outcome } from "../helpers/outcomes.ts";

const textOf = (event: ConnectorEvent): string => (event.message.type === "text" ? event.message.text : "");

function run(options: {
  input: string;
  interactive?: boolean;
  config?: JsonObject;
  reply?: (event: ConnectorEvent) => Promise<ConnectorReply>;
}) {
  const seen: ConnectorEvent[] = [];
  let output = "";
  const input = new PassThrough();
  input.end(options.input);
  const request =
    options.reply ??
    (async (event: ConnectorEvent) => {
      seen.push(event);
      return outcome({ eventId: `e${seen.length}`, response: `echo: ${textOf(event)}` });
    });
  const done = runCliLoop({
    ctx: { request, config: options.config ?? {}, signal: new AbortController().signal },
    io: { input, write: (text) => (output += text), interactive: options.interactive ?? false },
  });
  return { done, seen, output: () => output };
}

describe("runCliLoop", () => {
  it("sends each piped line as one event and prints the replies in order", async () => {
    const session = run({ input: "first\n\nsecond\nthird" });
    await session.done;
    expect(session.seen.map((event) => textOf(event))).toEqual(["first", "second", "third"]);
    expect(session.output()).toBe("echo: first\necho: second\necho: third\n");
  });

  it("waits for each reply before sending the next line", async () => {
    const order: string[] = [];
    const session = run({
      input: "slow\nfast\n",
      reply: async (event) => {
        order.push(`start ${textOf(event)}`);
        await new Promise((resolve) => setTimeout(resolve, textOf(event) === "slow" ? 20 : 0));
        order.push(`end ${textOf(event)}`);
        return outcome({ eventId: "e", response: textOf(event) });
      },
    });
    await session.done;
    expect(order).toEqual(["start slow", "end slow", "start fast", "end fast"]);
  });

  it("shows a prompt on a TTY and stops at :exit", async () => {
    const session = run({ input: "hello\n:exit\nignored\n", interactive: true, config: { prompt: "you> " } });
    await session.done;
    expect(session.output()).toBe("you> echo: hello\nyou> ");
    expect(session.seen).toHaveLength(1);
  });

  it("uses the configured instanceKey and names the event stdin_message, the public Goondan name", async () => {
    const session = run({ input: "hi\n", config: { instanceKey: "desk" } });
    await session.done;
    expect(session.seen[0]).toEqual({
      name: "stdin_message",
      message: { type: "text", text: "hi" },
      properties: {},
      instanceKey: "desk",
    });
  });

  it("prints a failed turn or a refused event as an error line and keeps reading", async () => {
    let calls = 0;
    const session = run({
      input: "a\nb\n",
      reply: async () => {
        calls++;
        if (calls === 1) throw Object.assign(new Error("no rule"), { code: "E_CONNECTOR_NO_ROUTE" });
        return outcome({
          eventId: "e",
          status: "error",
          response: "",
          error: { code: "E_AGENT_TURN_FAILED", message: "boom" },
        });
      },
    });
    await session.done;
    expect(session.output()).toBe("error [E_CONNECTOR_NO_ROUTE]: no rule\nerror [E_AGENT_TURN_FAILED]: boom\n");
  });
});

const tool = (
  phase: "started" | "ended",
  agent: string,
  name: string,
  extra: Partial<ToolProgress> = {},
): ToolProgress => ({
  kind: "tool",
  phase,
  agent,
  instanceKey: "k",
  traceId: "t",
  turnId: "turn",
  name,
  toolCallId: `${agent}-${name}`,
  ...extra,
});

/** A spinner that records what it was told (start, each text, stop). */
function fakeSpinner(): Spinner & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    set text(value: string) {
      log.push(`text ${value}`);
    },
    get text() {
      return "";
    },
    start: () => void log.push("start"),
    stop: () => void log.push("stop"),
  };
}

describe("runCliLoop with a turn status (a chat on a terminal)", () => {
  it("starts the status before asking, hands it the turn's progress, and stops it before printing the reply", async () => {
    const order: string[] = [];
    const input = new PassThrough();
    input.end("hi\n");
    const request = async (_event: ConnectorEvent, options?: ConnectorRequestOptions) => {
      options?.onProgress?.(tool("started", "coordinator", "agents__request"));
      options?.onProgress?.(tool("ended", "coordinator", "agents__request", { status: "ok" }));
      return outcome({ eventId: "e1", response: "done" });
    };
    await runCliLoop({
      ctx: { request, config: {}, signal: new AbortController().signal },
      io: {
        input,
        interactive: true,
        write: (text) => void order.push(`write ${JSON.stringify(text)}`),
        status: {
          start: () => void order.push("status start"),
          progress: (progress) =>
            void order.push(`status ${progress.kind === "tool" ? progress.phase : progress.kind}`),
          stop: () => void order.push("status stop"),
        },
      },
    });
    expect(order).toEqual([
      'write "> "',
      "status start",
      "status started",
      "status ended",
      "status stop",
      'write "done\\n"',
      'write "> "',
    ]);
  });

  it("stops the status when the request fails too", async () => {
    const order: string[] = [];
    const input = new PassThrough();
    input.end("hi\n");
    await runCliLoop({
      ctx: {
        request: async () => Promise.reject(Object.assign(new Error("refused"), { code: "E_X" })),
        config: {},
        signal: new AbortController().signal,
      },
      io: {
        input,
        interactive: false,
        write: (text) => void order.push(text),
        status: { start: () => void order.push("start"), progress: () => {}, stop: () => void order.push("stop") },
      },
    });
    expect(order).toEqual(["start", "stop", "error [E_X]: refused\n"]);
  });
});

describe("TurnStatus", () => {
  it("prints one line per tool call as it starts, a ✗ line for a failure, and shows what runs now and for how long", () => {
    const spinner = fakeSpinner();
    const lines: string[] = [];
    let now = 1_000;
    const status = new TurnStatus({ write: (text) => void lines.push(text), spinner, now: () => now, tickMs: 60_000 });
    status.start();
    now += 2_000;
    status.progress(tool("started", "coordinator", "agents__request"));
    status.progress(tool("started", "worker", "bash__exec"));
    now += 1_000;
    status.progress(tool("ended", "worker", "bash__exec", { status: "error", code: "E_TOOL_TIMEOUT" }));
    status.progress(tool("ended", "coordinator", "agents__request", { status: "ok" }));
    status.stop();
    expect(lines).toEqual([
      "→ coordinator · agents__request\n",
      "→ worker · bash__exec\n",
      "✗ worker · bash__exec E_TOOL_TIMEOUT\n",
    ]);
    expect(spinner.log).toEqual([
      "text thinking 0s",
      "start",
      "text coordinator · agents__request 2s",
      "text worker · bash__exec 2s",
      "text coordinator · agents__request 3s",
      "text thinking 3s",
      "stop",
    ]);
  });

  it("redraws the elapsed time while nothing else happens", async () => {
    const spinner = fakeSpinner();
    let now = 0;
    const status = new TurnStatus({ write: () => {}, spinner, now: () => now, tickMs: 5 });
    status.start();
    now = 4_000;
    const deadline = Date.now() + 2_000;
    while (!spinner.log.includes("text thinking 4s") && Date.now() < deadline) await Bun.sleep(5);
    status.stop();
    expect(spinner.log).toContain("text thinking 4s");
    const count = spinner.log.length;
    await Bun.sleep(20);
    expect(spinner.log).toHaveLength(count);
  });

  it("tells apart calls of different turns that their models gave the same id", () => {
    const spinner = fakeSpinner();
    const status = new TurnStatus({ write: () => {}, spinner, now: () => 0, tickMs: 60_000 });
    status.start();
    status.progress(tool("started", "coordinator", "agents__request", { turnId: "turn-1", toolCallId: "call_1" }));
    status.progress(tool("started", "worker", "bash__exec", { turnId: "turn-2", toolCallId: "call_1" }));
    status.progress(tool("ended", "worker", "bash__exec", { turnId: "turn-2", toolCallId: "call_1", status: "ok" }));
    status.stop();
    expect(spinner.log.at(-2)).toBe("text coordinator · agents__request 0s");
  });

  it("spells a tool line as agent · tool", () => {
    expect(toolLine(tool("started", "worker", "file-system__write"))).toBe("→ worker · file-system__write\n");
    expect(toolLine(tool("ended", "worker", "file-system__write", { status: "error" }))).toBe(
      "✗ worker · file-system__write\n",
    );
  });
});

describe("formatReply", () => {
  it("keeps a reply's own trailing newline", () => {
    expect(formatReply(outcome({ eventId: "e", response: "done\n" }))).toBe("done\n");
  });
});

describe("TurnStatus with a streaming model", () => {
  const about = { agent: "coordinator", instanceKey: "k", traceId: "t", eventId: "e" };
  const text = (value: string) => ({ kind: "delta" as const, ...about, text: value });
  const reply = (response: string) => ({
    status: "ok" as const,
    agent: "coordinator",
    instanceKey: "k",
    eventId: "e",
    turnId: "t1",
    response,
    finishReason: "stop",
  });

  it("steps the spinner aside for streamed text, brings it back on a new line for a tool call, and ends the reply with a newline", () => {
    const spinner = fakeSpinner();
    const out: string[] = [];
    const status = new TurnStatus({ write: (value) => void out.push(value), spinner, now: () => 0, tickMs: 60_000 });
    status.start();
    status.progress(text("Let me "));
    status.progress(text("ask."));
    status.progress(tool("started", "coordinator", "agents__request"));
    status.progress(text("It is 42."));
    status.stop();
    status.finish(reply("It is 42."));
    expect(out.join("")).toBe("Let me ask.\n→ coordinator · agents__request\nIt is 42.\n");
    expect(spinner.log.filter((entry) => entry === "start" || entry === "stop")).toEqual([
      "start",
      "stop",
      "start",
      "stop",
    ]);
  });

  it("says when the text starts over, and prints the whole reply when the stream was not it", () => {
    const out: string[] = [];
    const status = new TurnStatus({
      write: (value) => void out.push(value),
      spinner: fakeSpinner(),
      now: () => 0,
      tickMs: 60_000,
    });
    status.start();
    status.progress(text("Hal"));
    status.progress({ kind: "restarted", ...about, reason: "redelivered" });
    status.progress(text("Hello"));
    status.stop();
    status.finish(reply("Hello"));
    expect(out.join("")).toBe("Hal\n↻ (the answer starts over)\nHello\n");
    const whole: string[] = [];
    const other = new TurnStatus({
      write: (value) => void whole.push(value),
      spinner: fakeSpinner(),
      now: () => 0,
      tickMs: 60_000,
    });
    other.start();
    other.progress(text("thinking aloud"));
    other.stop();
    other.finish({ ...reply(""), status: "error", error: { code: "E_X", message: "boom" } });
    expect(whole.join("")).toBe("thinking aloud\nerror [E_X]: boom\n");
  });
});
