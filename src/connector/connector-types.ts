/**
 * The public types of a connector's entry function (the public Goondan ConnectorContext, plus `request` for
 * connectors that print replies, like `cli`): what `ctx` offers inside the connector child. Declared here, once;
 * the built-in connectors (src/base) and connector authors (`import type { ConnectorContext } from "goondan"`)
 * import them from here.
 */
import type { Approval } from "../protocol/approval.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { TurnProgress } from "../protocol/turn-progress.ts";
import type { JsonObject } from "../shared/json.ts";
import type { ConnectorEvent } from "./connector-event.ts";

export type { ConnectorEvent, ConnectorEventMessage } from "./connector-event.ts";
export type { ToolProgress, TurnProgress } from "../protocol/turn-progress.ts";

/** The reply of the turn an event started: the turn's outcome. */
export type ConnectorReply = TurnOutcome;

export interface ConnectorRequestOptions {
  /**
   * Called with the progress of the turn the event starts and of the turns it delegates to (a tool call started
   * or ended), as it happens, until the reply. Default: none, and no progress is sent.
   */
  onProgress?: (progress: TurnProgress) => void;
}

export interface ConnectorLogger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/** Held tool calls, as a connector that talks to a person reads and decides them (the `cli` connector's prompt). */
export interface ConnectorApprovals {
  /** The held call: tool name, arguments, deadline. Rejects with a coded error (E_APPROVAL_NOT_FOUND). */
  get(id: string): Promise<Approval>;
  /**
   * Decides it once; resolves with the decided approval and, when it was the last one its turn waited for, that
   * turn's outcome once it ends. Rejects with a coded error (E_APPROVAL_DECIDED, E_APPROVAL_FORBIDDEN, …).
   */
  decide(
    id: string,
    decision: { decision: "approve" | "deny"; reason?: string },
  ): Promise<{ approval: Approval; outcome?: TurnOutcome }>;
}

export interface ConnectorContext {
  /** Sends an event; resolves with its id once the orchestrator accepted it, rejects with a coded error if refused. */
  emit(event: ConnectorEvent): Promise<{ eventId: string }>;
  /** Sends an event and resolves with the reply of the turn it started; `onProgress` sees its tool calls meanwhile. */
  request(event: ConnectorEvent, options?: ConnectorRequestOptions): Promise<ConnectorReply>;
  /** The Connection's `spec.config`, ValueSources resolved. */
  config: JsonObject;
  /** The Connection's `spec.secrets`, resolved. */
  secrets: Record<string, string>;
  logger: ConnectorLogger;
  connection: string;
  /** Fired when the orchestrator asks the connector to stop. */
  signal: AbortSignal;
  /** Registers cleanup to run on shutdown (close servers, flush). */
  onShutdown(handler: () => void | Promise<void>): void;
  /** Held tool calls (a reply with `status: "awaiting_approval"` names them); absent in hand-built contexts. */
  approvals?: ConnectorApprovals;
}
