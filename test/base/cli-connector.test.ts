import { describe, expect, it } from "bun:test";
import { PassThrough } from "node:stream";
import { formatReply, runCliLoop } from "../../src/base/connectors/cli.ts";
import type { ConnectorEvent, ConnectorReply } from "../../src/connector/connector-types.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { outcome } from "../helpers/outcomes.ts";

const textOf = (event: ConnectorEvent): string => (event.message.type === "text" ? event.message.text : "");

function run(options: { input: string; interactive?: boolean; config?: JsonObject; reply?: (event: ConnectorEvent) => Promise<ConnectorReply> }) {
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
    expect(session.seen[0]).toEqual({ name: "stdin_message", message: { type: "text", text: "hi" }, properties: {}, instanceKey: "desk" });
  });

  it("prints a failed turn or a refused event as an error line and keeps reading", async () => {
    let calls = 0;
    const session = run({
      input: "a\nb\n",
      reply: async () => {
        calls++;
        if (calls === 1) throw Object.assign(new Error("no rule"), { code: "E_CONNECTOR_NO_ROUTE" });
        return outcome({ eventId: "e", status: "error", response: "", error: { code: "AGENT_TURN_FAILED", message: "boom" } });
      },
    });
    await session.done;
    expect(session.output()).toBe("error [E_CONNECTOR_NO_ROUTE]: no rule\nerror [AGENT_TURN_FAILED]: boom\n");
  });
});

describe("formatReply", () => {
  it("keeps a reply's own trailing newline", () => {
    expect(formatReply(outcome({ eventId: "e", response: "done\n" }))).toBe("done\n");
  });
});
