/**
 * Where each event of an AG-UI run goes out: at the stored position of the turn message it comes from
 * (turn-projection.ts) and its part among the events made from that message (`<cursor>.<offset>.<part>`, with the
 * run's key before it: stream-position.ts). RUN_STARTED is at the run's first cursor; the events that end the run
 * (the open message's end, results, RUN_FINISHED or RUN_ERROR) are one past the last message. A resumed stream
 * takes what lies before the client's position silently (the run keeps its state: which message and calls are
 * open) and sends only what lies past it. The SDK's encoder (with the protobuf codec it carries, a tenth of the
 * daemon's start) is loaded by the first AG-UI stream, not when the API starts.
 */
import type { EventEncoder } from "@ag-ui/encoder";
import type { BaseEvent } from "@ag-ui/core";
import { comparePositions, type StreamPosition } from "../stream-position.ts";

interface WriterOptions {
  /** Writes one encoded event with its position. */
  send: (chunk: string, position: StreamPosition) => void;
  /** Where the run starts (RUN_STARTED's position). */
  start: number;
  /** A resume: the client's position; only what lies past it is sent. */
  after?: StreamPosition;
}

let encoderModule: Promise<typeof import("@ag-ui/encoder")> | undefined;

export class AgUiStreamWriter {
  /** A writer, once the SDK's encoder is loaded. */
  static async open(options: WriterOptions): Promise<AgUiStreamWriter> {
    encoderModule ??= import("@ag-ui/encoder");
    const { EventEncoder } = await encoderModule;
    return new AgUiStreamWriter(new EventEncoder({ accept: "text/event-stream" }), options);
  }

  private at: StreamPosition;
  private part = 0;
  private silent = false;

  private constructor(
    private readonly encoder: EventEncoder,
    private readonly options: WriterOptions,
  ) {
    this.at = { cursor: options.start, offset: 0 };
  }

  /** The events from here on come from a message at `position` (`silent`: the client holds it). */
  moveTo(position: StreamPosition, silent = false): void {
    if (position.cursor !== this.at.cursor || position.offset !== this.at.offset) this.part = 0;
    this.at = { cursor: position.cursor, offset: position.offset };
    this.silent = silent;
  }

  readonly emit = (event: BaseEvent): void => {
    if (this.silent) return;
    this.part += 1;
    const position = { ...this.at, part: this.part };
    const after = this.options.after;
    if (after !== undefined && comparePositions(position, after) <= 0) return;
    this.options.send(this.encoder.encodeSSE(event), position);
  };
}
