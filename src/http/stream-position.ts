/**
 * The one id scheme of the API's resumable streams: every server-sent event's `id:` is a stored position, so a client
 * that reconnects with `Last-Event-ID` continues right after it, from the store, across an orchestrator restart too.
 *
 * - `<cursor>` (`GET /v1/watch` on one host): the stored cursor of the runtime event sent, the sequence of
 *   `GET /v1/runtime-events`, which never goes back.
 * - `<cursor>.<offset>` (the streams of one event: `POST /v1/events` with `stream`, AG-UI, A2A): the cursor of the
 *   newest runtime event of the event's trace the stream had covered, and how far past it the message is: for a
 *   stream that carries reply text, the characters of it the client holds (since the last `restarted`); otherwise
 *   the message's place among those sent at that cursor (1, 2, …).
 * - AG-UI writes a few events for some messages of a turn (a tool call's start and its arguments): they share the
 *   message's position and add their place, `<cursor>.<offset>.<part>`.
 * - AG-UI and A2A prefix it with the stream they resume, as their request does not name it: `<key>:<cursor>.<offset>`
 *   (AG-UI: the run's event id; A2A: the task id).
 * - A cluster watch: the cluster cursor after the event (`n1:12,n2:40`), each node's stored position.
 */

export interface StreamPosition {
  cursor: number;
  offset: number;
  /** AG-UI: one message of a turn may be a few AG-UI events; they share its position and add their part (1, 2, …). */
  part?: number;
}

export const START_POSITION: StreamPosition = { cursor: 0, offset: 0 };

export function formatPosition(position: StreamPosition): string {
  const part = position.part === undefined ? "" : `.${position.part}`;
  return `${position.cursor}.${position.offset}${part}`;
}

/** `<cursor>.<offset>` (or `<cursor>.<offset>.<part>`), or undefined for anything else. */
export function parsePosition(text: string): StreamPosition | undefined {
  const match = /^(\d{1,15})\.(\d{1,12})(?:\.(\d{1,4}))?$/.exec(text);
  if (match === null) return undefined;
  const position = { cursor: Number(match[1]), offset: Number(match[2]) };
  return match[3] === undefined ? position : { ...position, part: Number(match[3]) };
}

/** Negative when `left` comes first, 0 when equal, positive after (no part counts as part 0). */
export function comparePositions(left: StreamPosition, right: StreamPosition): number {
  if (left.cursor !== right.cursor) return left.cursor - right.cursor;
  if (left.offset !== right.offset) return left.offset - right.offset;
  return (left.part ?? 0) - (right.part ?? 0);
}

/** `<key>:<cursor>.<offset>` (AG-UI, A2A): the stream's key and the position, or undefined if not one. */
export function keyedPosition(header: string | undefined): { key: string; position: StreamPosition } | undefined {
  if (header === undefined) return undefined;
  const colon = header.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const position = parsePosition(header.slice(colon + 1));
  return position === undefined ? undefined : { key: header.slice(0, colon), position };
}
