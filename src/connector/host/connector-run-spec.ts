/**
 * What the orchestrator side needs to run one Connection's connector child (ConnectorRunSpec, built by
 * connection-plan.ts), and the seam through which the child's routed events reach the agents (ConnectorIngest:
 * the daemon binds it to the orchestrator's `ingest`, durable before it resolves).
 */
import type { IngressRule } from "../../config/types.ts";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import type { Approval } from "../../protocol/approval.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { TurnProgress } from "../../protocol/turn-progress.ts";

export interface ConnectorRunSpec {
  connection: string;
  connector: string;
  /** Absolute path of the connector's entry module. */
  entry: string;
  config: JsonObject;
  secrets: Record<string, string>;
  rules: IngressRule[];
  entryAgent: string;
  swarmInstanceKey: string;
  /** Give the child the orchestrator's stdin (the built-in `cli` connector). */
  stdin: "inherit" | "ignore";
  /** The child's sandbox, from its Connector (absent: none, as in tests with a fake spawner). */
  sandbox?: { network: "none" | "host"; isolation: "auto" | "required" | "none" };
  /** The argv prefix that starts the child in its sandbox; set by the supervisor once it knows the machine allows it. */
  launcher?: string[];
}

export interface ConnectorIngestRequest {
  connection: string;
  /** A stable id (a schedule's tick): accepting it again is a no-op answered `duplicate`. Default: a new id. */
  eventId?: string;
  agent: string;
  instanceKey: string;
  input: string;
  /** `connector.<event name>` */
  type: string;
  metadata: JsonObject;
  wantsReply: boolean;
  /** Receives the progress of the turn the event starts (and of its delegations), when the connector asked. */
  onProgress?: (progress: TurnProgress) => void;
}

/** Held tool calls as a connector may read and decide them (the daemon binds it to the orchestrator's ApprovalDesk). */
export interface ConnectorApprovals {
  get(id: string): Promise<Approval | undefined>;
  /** `missing`, `already` or `forbidden` refuse; `outcome` settles with the resumed turn's end when this was its last decision. */
  decide(request: {
    id: string;
    decision: "approve" | "deny";
    reason?: string;
  }): Promise<{ type: string; approval?: Approval; outcome?: Promise<TurnOutcome> }>;
  /** Wakes every turn waiting for signal `name` with `payload` (as `POST /v1/signals/:name`); `missing`: nobody waits. */
  signal?(
    name: string,
    payload: JsonValue,
  ): Promise<{ type: "delivered"; approvals: Approval[] } | { type: "missing" }>;
}

/** Hands an event to the orchestrator; resolves once it is durably accepted (rejects with a coded error if refused). */
export type ConnectorIngest = (
  request: ConnectorIngestRequest,
) => Promise<{ eventId: string; duplicate?: boolean; reply?: Promise<TurnOutcome> }>;
