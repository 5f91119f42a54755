/**
 * The built-in `cli` connector: reads stdin line by line, sends each non-empty line as one
 * `stdin_message` event (the public Goondan name; ingress rules written for the older `user_input` still
 * match it) and prints the reply before reading the next line, so piped input gets its
 * replies in order. On a TTY it is an interactive chat with a `> ` prompt, a status line while the model thinks,
 * one line per tool call, the delegated agents' included, and the reply as it streams (turn-status.ts; the Model
 * streams with `options.stream: true`, else the reply comes whole); `:exit`/`:quit` or Ctrl+D ends
 * the input. Ctrl+C reaches the orchestrator, which shuts everything down cleanly.
 *
 * A reply that waits for approvals of tool calls asks `[y/N]` for each inline (approval-prompt.ts) on a terminal.
 *
 * Config: `instanceKey` (default: the route's or the Swarm's), `prompt` (default `> `), `promptApprovals` (ask
 * about held calls on piped input too; default false: piped input prints their ids for `goondan approve`).
 */
import { createInterface } from "node:readline";
import type { ConnectorContext } from "../../connector/connector-types.ts";
import { formatReply } from "../../connector/streamed-reply.ts";
import { promptApprovals } from "./approval-prompt.ts";
import { configValue } from "./config-value.ts";
import { TurnStatus } from "../../connector/turn-status.ts";

export interface CliIo {
  input: NodeJS.ReadableStream;
  write: (text: string) => void;
  interactive: boolean;
  /**
   * Shows the running turn (status line, tool lines, the reply as it streams); only a chat on a terminal has one.
   * With `finish`, it prints the reply itself (what streaming left to print). Default: none.
   */
  status?: Pick<TurnStatus, "start" | "progress" | "stop"> & Partial<Pick<TurnStatus, "finish">>;
}

export { formatReply };

/** The event every line becomes. */
export const CLI_EVENT = "stdin_message";

export const isExitCommand = (line: string): boolean => line === ":exit" || line === ":quit";

/** The read-send-print loop; resolves when the input ends. */
export async function runCliLoop(options: {
  ctx: Pick<ConnectorContext, "request" | "config" | "signal" | "approvals">;
  io: CliIo;
}): Promise<void> {
  const { ctx, io } = options;
  const prompt = String(configValue(ctx.config, "prompt") ?? "> ");
  const instanceKey = configValue(ctx.config, "instanceKey");
  const lines = createInterface({ input: io.input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  ctx.signal.addEventListener("abort", () => lines.close(), { once: true });
  if (io.interactive) io.write(prompt);
  const input = lines[Symbol.asyncIterator]();
  const nextLine = async (): Promise<string | undefined> => {
    const read = await input.next();
    return read.done === true ? undefined : read.value;
  };
  // A chat on a terminal asks about held tool calls inline ([y/N]); piped input does when the config says so.
  const approvals = io.interactive || configValue(ctx.config, "promptApprovals") === true ? ctx.approvals : undefined;
  for (let raw = await nextLine(); raw !== undefined; raw = await nextLine()) {
    const line = raw.trim();
    if (isExitCommand(line)) break;
    if (line !== "") {
      const status = io.status;
      status?.start();
      try {
        let reply = await ctx.request(
          {
            name: CLI_EVENT,
            message: { type: "text", text: line },
            properties: {},
            ...(typeof instanceKey === "string" && instanceKey !== "" ? { instanceKey } : {}),
          },
          status ? { onProgress: (progress) => status.progress(progress) } : undefined,
        );
        status?.stop();
        if (approvals !== undefined && reply.status === "awaiting_approval")
          reply = await promptApprovals({
            approvals,
            reply,
            write: io.write,
            ask: (question) => (io.write(question), nextLine()),
          });
        if (status?.finish) status.finish(reply);
        else io.write(formatReply(reply));
      } catch (error) {
        status?.stop();
        if (ctx.signal.aborted) break;
        const code =
          typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : "E_CLI";
        io.write(`error [${code}]: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    if (io.interactive) io.write(prompt);
  }
  lines.close();
}

export default async function cliConnector(ctx: ConnectorContext): Promise<void> {
  const interactive = process.stdin.isTTY === true;
  const write = (text: string) => void process.stdout.write(text);
  const status = interactive && process.stdout.isTTY === true ? new TurnStatus({ write }) : undefined;
  await runCliLoop({ ctx, io: { input: process.stdin, write, interactive, ...(status ? { status } : {}) } });
  if (interactive && !ctx.signal.aborted) {
    // The operator ended the chat (:exit or Ctrl+D): ask the orchestrator to shut down cleanly.
    process.stdout.write("\n");
    process.kill(process.ppid, "SIGTERM");
  }
  // Piped input is over: stay up idle (an exit would be restarted and read a closed stdin again).
  await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
}
