/**
 * The typed client of goondan's HTTP API (`import { createClient } from "goondan/client"`): send an event and wait for
 * its outcome or stream its progress, read where an event stands, watch the runtime events (resumed after a dropped
 * connection), list and decide approvals, read the process and instance tables. It needs only fetch and
 * ReadableStream, so it runs on Node 18+, Bun and in browsers; the shapes are the API's own wire types
 * (src/protocol/api-wire.ts and the types the routes answer with).
 */
import type { ApprovalView, EventAccepted, EventState } from "../protocol/api-wire.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { ProcessInfo } from "../supervision/process-table.ts";
import type { InstanceRow } from "../orchestrator/instances/stored-instances.ts";
import { ApiCaller, type ApiCallOptions } from "./api-call.ts";
import { type SendRequest, type StreamEvent, type StreamOptions, streamEvent } from "./event-stream.ts";
import { watchEvents, type Watch, type WatchOptions } from "./watch-stream.ts";

export type ClientOptions = ApiCallOptions;
export type { SendRequest, StreamEvent, StreamOptions };

export interface DecideRequest {
  decision: "approve" | "deny";
  reason?: string;
  /** Who decides (checked against the approval's `approvers`). */
  approver?: string;
  /** Wait for the outcome of the turn the decision resumes. Default false. */
  wait?: boolean;
}

export interface GoondanClient {
  /** Sends an event and resolves with its turn's outcome (`POST /v1/events` with `wait: true`). */
  send(request: SendRequest): Promise<TurnOutcome>;
  /**
   * Sends an event and yields its progress as it happens, ending with `done` (the outcome) or `error`; a stream
   * that breaks off is resumed where it stopped.
   */
  send(request: SendRequest, options: StreamOptions): AsyncIterable<StreamEvent>;
  /** Sends an event and resolves once it is durably accepted (`202`), without waiting for its turn. */
  accept(request: SendRequest): Promise<EventAccepted>;
  events: {
    /** Where an accepted event stands: `accepted`, `running`, or its outcome. */
    get(eventId: string): Promise<EventState>;
  };
  /** The runtime events as they happen, resumed with the last id after a dropped connection. */
  watch(options?: WatchOptions): Watch;
  approvals: {
    /** The tool calls waiting for a person's decision, oldest first. */
    list(): Promise<ApprovalView[]>;
    /** Decides one; with `wait`, also the outcome of the turn it resumed (when it was the last one that turn waited for). */
    decide(id: string, request: DecideRequest): Promise<{ approval: ApprovalView; outcome?: TurnOutcome }>;
  };
  /** The process table: agent and connector children with their supervision status. */
  processes(): Promise<ProcessInfo[]>;
  /** Every known instance, live or only on disk. */
  instances(): Promise<InstanceRow[]>;
}

const segment = (value: string) => encodeURIComponent(value);

export function createClient(options: ClientOptions): GoondanClient {
  const api = new ApiCaller(options);

  function send(request: SendRequest): Promise<TurnOutcome>;
  function send(request: SendRequest, options: StreamOptions): AsyncIterable<StreamEvent>;
  function send(request: SendRequest, sendOptions?: StreamOptions): Promise<TurnOutcome> | AsyncIterable<StreamEvent> {
    if (sendOptions?.stream === true) return { [Symbol.asyncIterator]: () => streamEvent(api, request, sendOptions) };
    return api.json<TurnOutcome>({ method: "POST", path: "/v1/events", body: { ...request, wait: true } });
  }

  return {
    send,
    accept: (request) => api.json<EventAccepted>({ method: "POST", path: "/v1/events", body: request }),
    events: { get: (eventId) => api.json<EventState>({ path: `/v1/events/${segment(eventId)}` }) },
    watch: (watchOptions) => watchEvents(api, watchOptions),
    approvals: {
      list: async () => (await api.json<{ approvals: ApprovalView[] }>({ path: "/v1/approvals" })).approvals,
      decide: (id, request) => api.json({ method: "POST", path: `/v1/approvals/${segment(id)}`, body: request }),
    },
    processes: async () => (await api.json<{ processes: ProcessInfo[] }>({ path: "/v1/processes" })).processes,
    instances: async () => (await api.json<{ instances: InstanceRow[] }>({ path: "/v1/instances" })).instances,
  };
}
