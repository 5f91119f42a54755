/**
 * `client.watch()`: `GET /v1/watch` as an async iterator of typed events that survives a dropped connection. It keeps
 * the `id` of the last message it read and, when the stream ends or fails (the orchestrator restarted, a proxy cut
 * it), opens it again with `Last-Event-ID`: the server continues right after that event, from the store, so nothing
 * is missed or seen twice, across an orchestrator restart too. Retries wait `retryMs`, doubling up to
 * `maxRetryMs`; a refusal (4xx: a bad filter, a wrong token) is thrown, not retried. Ends when `signal` aborts.
 */
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { ApiCaller } from "./api-call.ts";
import { GoondanApiError } from "./client-error.ts";
import { pause } from "./pause.ts";
import { sseMessages } from "./sse-messages.ts";

export interface WatchOptions {
  agent?: string;
  instanceKey?: string;
  /** An event type, or a prefix of one (`tool.`). */
  type?: string;
  traceId?: string;
  /** Replay the stored events after this cursor first (`0`: everything). Default: only events from now on. */
  after?: number | string;
  /** Continue after this event (an `id` an earlier watch gave). Wins over `after`. */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Called each time the stream is open (the server answered), the first time and after each reconnect. */
  onOpen?: () => void;
  /** Open the stream again after it ends or fails. Default true. */
  reconnect?: boolean;
  /** First wait before opening it again (ms). Default 250. */
  retryMs?: number;
  /** Longest wait between tries (ms). Default 5000. */
  maxRetryMs?: number;
}

export type WatchEvent =
  /** A runtime event; `id` is its stored cursor (what a later watch's `lastEventId` takes). */
  | { type: "runtime"; id: string | undefined; event: RuntimeEvent & { node?: string } }
  /** A cluster node: the nodes that did not answer (their live events, or with `replay` their stored ones). */
  | { type: "cluster"; unanswered: Array<{ node: string; status: string }>; replay?: boolean };

export interface Watch extends AsyncIterable<WatchEvent> {
  /** The id of the last message read: where a resumed watch goes on. */
  readonly lastEventId: string | undefined;
}

export function watchEvents(api: ApiCaller, options: WatchOptions = {}): Watch {
  let lastEventId = options.lastEventId;
  const query = new URLSearchParams();
  for (const name of ["agent", "instanceKey", "type", "traceId"] as const) {
    const value = options[name];
    if (value !== undefined) query.set(name, value);
  }
  if (options.after !== undefined) query.set("after", String(options.after));
  const path = `/v1/watch${query.size > 0 ? `?${query}` : ""}`;
  const signal = options.signal;

  async function* run(): AsyncGenerator<WatchEvent> {
    let waitMs = options.retryMs ?? 250;
    for (;;) {
      try {
        const { body } = await api.stream({
          path,
          ...(lastEventId === undefined ? {} : { headers: { "last-event-id": lastEventId } }),
          ...(signal === undefined ? {} : { signal }),
        });
        waitMs = options.retryMs ?? 250;
        options.onOpen?.();
        for await (const message of sseMessages(body)) {
          if (message.id !== undefined) lastEventId = message.id;
          if (message.event === "runtime")
            yield { type: "runtime", id: message.id, event: JSON.parse(message.data) as RuntimeEvent };
          else if (message.event === "cluster") yield { type: "cluster", ...JSON.parse(message.data) };
        }
      } catch (error) {
        if (signal?.aborted) return;
        const refused = error instanceof GoondanApiError && error.status < 500 && error.status !== 429;
        if (refused || options.reconnect === false) throw error;
      }
      if (signal?.aborted || options.reconnect === false) return;
      await pause(waitMs, signal);
      if (signal?.aborted) return;
      waitMs = Math.min(waitMs * 2, options.maxRetryMs ?? 5000);
    }
  }

  return {
    get lastEventId() {
      return lastEventId;
    },
    [Symbol.asyncIterator]: () => run(),
  };
}
