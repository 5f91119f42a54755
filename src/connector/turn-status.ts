/**
 * A person's view of a running turn on a terminal (the cli connector's chat, `goondan run --input`): a spinner line saying what runs now and for how long
 * (`thinking 3s`, `worker · bash__exec 1s`), one line per tool call printed above it as the call starts
 * (`→ worker · agents__request`), plus a `✗` line when one ends in an error, and the turn's text as the model
 * streams it (connector/streamed-reply.ts): the spinner steps aside while text comes, and comes back on the next
 * line when a tool call starts. Tool calls of delegated turns arrive here too (the same TurnProgress records), so
 * a person sees the worker's tools under the coordinator's. The spinner is yocto-spinner on stdout, which clears
 * itself before any other write to stdout and redraws after.
 */
import yoctoSpinner from "yocto-spinner";
import type { ConnectorReply, TurnProgress } from "./connector-types.ts";
import { StreamedReply, toolLine } from "./streamed-reply.ts";

/** The part of yocto-spinner a turn status drives (tests pass a fake). */
export interface Spinner {
  text: string;
  start(): unknown;
  stop(): unknown;
}

export interface TurnStatusOptions {
  /** Prints the streamed text and the reply (to the same terminal as the spinner). */
  write: (text: string) => void;
  /** Prints tool lines. Default: `write`. */
  writeTool?: (text: string) => void;
  /** Default: yocto-spinner on stdout, without its own signal handlers (the orchestrator decides on Ctrl+C). */
  spinner?: Spinner;
  /** Default: Date.now. */
  now?: () => number;
  /** How often the elapsed time is redrawn. Default 1000 ms. */
  tickMs?: number;
}

export { toolLine };

export class TurnStatus {
  private readonly spinner: Spinner;
  private readonly now: () => number;
  private readonly running = new Map<string, string>();
  private startedAt = 0;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly reply: StreamedReply;
  private spinning = false;

  constructor(private readonly options: TurnStatusOptions) {
    this.spinner = options.spinner ?? yoctoSpinner({ stream: process.stdout, handleSignals: false });
    this.now = options.now ?? Date.now;
    this.reply = new StreamedReply(options.write);
  }

  /** A turn was asked for: the spinner runs until `stop` (stepping aside while text streams). */
  start(): void {
    this.running.clear();
    this.startedAt = this.now();
    this.spin();
    // yocto-spinner draws on every text change, stopped or not: only a running spinner is told the time.
    this.ticker = setInterval(() => {
      if (this.spinning) this.spinner.text = this.label();
    }, this.options.tickMs ?? 1000);
  }

  progress(progress: TurnProgress): void {
    if (progress.kind === "delta") {
      this.pause();
      this.reply.text(progress.text);
      return;
    }
    if (progress.kind === "restarted") {
      this.pause();
      this.reply.restarted();
      if (this.ticker !== undefined) this.spin();
      return;
    }
    this.reply.breakLine();
    if (this.ticker !== undefined && !this.spinning) this.spin();
    // A model names its calls only within its own turn (`call_1` in the coordinator's and in the worker's).
    const key = `${progress.turnId}/${progress.toolCallId}`;
    if (progress.phase === "started") {
      this.running.set(key, `${progress.agent} · ${progress.name}`);
      (this.options.writeTool ?? this.options.write)(toolLine(progress));
    } else {
      this.running.delete(key);
      if (progress.status === "error") (this.options.writeTool ?? this.options.write)(toolLine(progress));
    }
    this.spinner.text = this.label();
  }

  /** The reply is here: the spinner line is cleared before it is printed. */
  stop(): void {
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
    this.pause();
  }

  /** Prints what the reply still needs after the text streamed so far (all of it when nothing streamed). */
  finish(reply: ConnectorReply): void {
    this.reply.end(reply);
  }

  /** Ends the line streamed text left open (before something else is printed in place of the reply). */
  breakLine(): void {
    this.reply.breakLine();
  }

  private spin(): void {
    this.spinner.text = this.label();
    if (this.spinning) return;
    this.spinning = true;
    this.spinner.start();
  }

  private pause(): void {
    if (!this.spinning) return;
    this.spinning = false;
    this.spinner.stop();
  }

  /** What runs now: the tool call started last among those still running, else the model. */
  private label(): string {
    const seconds = Math.floor((this.now() - this.startedAt) / 1000);
    return `${[...this.running.values()].at(-1) ?? "thinking"} ${seconds}s`;
  }
}
