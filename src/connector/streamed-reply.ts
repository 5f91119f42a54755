/**
 * A reply printed for a person as it streams: the turn's text goes out as it comes (`text`), a restart (the model
 * call was retried, or the event redelivered after a crash) says so on a line of its own and starts over, anything
 * else printed meanwhile (a tool line) first ends the line the text was on (`breakLine`), and when the reply is
 * there `end` prints what is still missing: a newline when the streamed text already was the reply, else the reply
 * (or its error) as it would have been printed whole. Used by the terminal chat (src/base/connectors) and by
 * `goondan run --input` on a terminal.
 */
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { ToolProgress } from "../protocol/turn-progress.ts";

/** `→ worker · agents__request` as a call starts; `✗ worker · bash__exec E_TOOL_TIMEOUT` when one failed. */
export function toolLine(progress: ToolProgress): string {
  if (progress.phase === "started") return `→ ${progress.agent} · ${progress.name}\n`;
  return `✗ ${progress.agent} · ${progress.name}${progress.code ? ` ${progress.code}` : ""}\n`;
}

/** One reply as printed whole: the text, `error [CODE]: message`, or which held calls wait for `goondan approve`. */
export function formatReply(reply: Pick<TurnOutcome, "status" | "response" | "error" | "approvalIds">): string {
  if (reply.status === "ok") return reply.response.endsWith("\n") ? reply.response : `${reply.response}\n`;
  if (reply.status === "awaiting_approval")
    return `awaiting approval: ${(reply.approvalIds ?? []).map((id) => `goondan approve ${id}`).join(", ")}\n`;
  return `error [${reply.error?.code ?? "E_UNKNOWN"}]: ${reply.error?.message ?? "the turn failed"}\n`;
}

export class StreamedReply {
  /** The text shown since the last restart. */
  private shown = "";
  /** The cursor is after streamed text, not at the start of a line. */
  private midLine = false;

  constructor(private readonly write: (text: string) => void) {}

  get started(): boolean {
    return this.shown !== "";
  }

  text(text: string): void {
    if (text === "") return;
    this.write(text);
    this.shown += text;
    this.midLine = !text.endsWith("\n");
  }

  restarted(): void {
    if (!this.started) return;
    this.breakLine();
    this.write("↻ (the answer starts over)\n");
    this.shown = "";
  }

  /** Ends the line streamed text is on, before something else is printed. */
  breakLine(): void {
    if (!this.midLine) return;
    this.write("\n");
    this.midLine = false;
  }

  /** Prints what the reply still needs after what was streamed; the next reply starts afresh. */
  end(reply: Pick<TurnOutcome, "status" | "response" | "error">): void {
    const complete = reply.status === "ok" && this.started && this.shown.trimEnd().endsWith(reply.response.trimEnd());
    this.breakLine();
    if (!complete) this.write(formatReply(reply));
    this.shown = "";
  }
}
