/**
 * The agent child's side of token streaming: the running turn's streamed text (the turn environment's `stream`)
 * goes to the orchestrator as `turn_delta` messages, the text of one tick gathered into one message. A retried model
 * call (`restarted`) drops what was gathered and not sent yet, and marks the next message `restarted` when some text
 * of this event already left. Text arriving with no event running (cannot happen in a turn) is dropped.
 */
import { envelope, ORCHESTRATOR, type ChildMessage } from "../../protocol/ipc-messages.ts";
import type { StepStream } from "../model/generate-step.ts";

export class TurnDeltaSender implements StepStream {
  private eventId: string | undefined;
  private text = "";
  /** Some text of this event was sent: a restart must be announced. */
  private sent = false;
  private restart = false;
  private scheduled = false;

  constructor(
    private readonly address: string,
    private readonly send: (message: ChildMessage) => void,
  ) {}

  /** The turn of `eventId` starts (or, with undefined, ended: what is gathered is sent first). */
  begin(eventId: string | undefined): void {
    this.flush();
    this.eventId = eventId;
    this.sent = false;
    this.restart = false;
  }

  delta(text: string): void {
    if (this.eventId === undefined || text === "") return;
    this.text += text;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  restarted(): void {
    this.text = "";
    if (this.sent) this.restart = true;
  }

  /** Sends what was gathered now (before the turn's result, so the text arrives first). */
  flush(): void {
    this.scheduled = false;
    if (this.eventId === undefined || (this.text === "" && !this.restart)) return;
    const payload = { eventId: this.eventId, text: this.text, ...(this.restart ? { restarted: true } : {}) };
    this.text = "";
    this.restart = false;
    this.sent = true;
    this.send(envelope("turn_delta", this.address, ORCHESTRATOR, payload));
  }
}
