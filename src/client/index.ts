/**
 * `goondan/client`: the typed client of a running swarm's HTTP API (goondan-client.ts), for Node 18+, Bun and
 * browsers, and its errors and event types.
 */
export { createClient } from "./goondan-client.ts";
export type {
  ClientOptions,
  DecideRequest,
  GoondanClient,
  SendRequest,
  StreamEvent,
  StreamOptions,
} from "./goondan-client.ts";
export { GoondanApiError, GoondanConnectionError } from "./client-error.ts";
export type { Watch, WatchEvent, WatchOptions } from "./watch-stream.ts";
export { sseMessages } from "./sse-messages.ts";
export type {
  ApiErrorBody,
  ApprovalView,
  EventAccepted,
  EventState,
  EventStreamMessages,
  ToolMessage,
} from "../protocol/api-wire.ts";
export type { TurnOutcome } from "../protocol/turn-outcome.ts";
export type { RuntimeEvent, RuntimeEventType } from "../protocol/runtime-event.ts";
export type { ProcessInfo } from "../supervision/process-table.ts";
export type { InstanceRow } from "../orchestrator/instances/stored-instances.ts";
