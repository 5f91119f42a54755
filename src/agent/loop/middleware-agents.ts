/**
 * `ctx.agents` of turn and step middleware (the public Goondan `MiddlewareAgentsApi`, plus `catalog`): asks
 * or tells other agents of the swarm from an extension, through the same runtime as the `agents` tool, so
 * the orchestrator applies the same routing, call chain (cycles, depth) and deadlines. A request answered
 * with an error, or refused by the orchestrator, rejects with a RuntimeCallError carrying the code.
 */
import type { JsonObject } from "../../shared/json.ts";
import type { AgentToolRuntime } from "../../tools/types.ts";
import { RuntimeCallError } from "./runtime-call-error.ts";

/** What `ctx.agents.request` takes (the public Goondan shape). `input` defaults to "". */
export interface MiddlewareAgentRequest {
  target: string;
  input?: string;
  /** Default: the Swarm's instanceKey. */
  instanceKey?: string;
  /** Default: the Swarm's `policy.requestTimeoutMs`. */
  timeoutMs?: number;
  /** Return at once; the reply is shown to the model before a later step (like `agents__request` async). */
  async?: boolean;
  metadata?: JsonObject;
}

/**
 * Other agents of the swarm, from turn and step middleware, through the orchestrator (same rules as the `agents`
 * tool). A request answered with an error, or refused (cycle, depth, unknown agent), rejects with an Error
 * carrying `code` (`E_AGENT_REQUEST_TIMEOUT`, `E_CIRCULAR_CALL_DETECTED`, …).
 */
export interface MiddlewareAgentsApi {
  request(params: MiddlewareAgentRequest): Promise<{
    target: string;
    response: string;
    correlationId?: string;
    instanceKey?: string;
    accepted?: boolean;
    async?: boolean;
  }>;
  send(params: Omit<MiddlewareAgentRequest, "timeoutMs" | "async">): Promise<{ accepted: boolean; eventId: string }>;
  /** The agents of this swarm (as `agents__catalog` lists them). */
  catalog(): Promise<{ agents: { name: string; description?: string; entry: boolean }[] }>;
}

export function middlewareAgents(runtime: AgentToolRuntime): MiddlewareAgentsApi {
  return {
    async request(params) {
      const options = {
        target: params.target,
        input: params.input ?? "",
        ...(params.instanceKey === undefined ? {} : { instanceKey: params.instanceKey }),
        ...(params.timeoutMs === undefined ? {} : { timeoutMs: params.timeoutMs }),
        ...(params.metadata === undefined ? {} : { metadata: params.metadata }),
      };
      if (params.async === true) {
        const { correlationId } = await runtime.request({ ...options, async: true });
        return { target: params.target, response: "", correlationId, accepted: true, async: true };
      }
      const reply = await runtime.request({ ...options, async: false });
      if (reply.status === "error") {
        throw new RuntimeCallError(
          reply.error?.code ?? "E_AGENT_REQUEST_FAILED",
          `${params.target} could not answer: ${reply.error?.message ?? "no reason given"}`,
        );
      }
      return {
        target: params.target,
        instanceKey: reply.instanceKey,
        response: reply.response ?? "",
        correlationId: reply.correlationId,
      };
    },
    async send(params) {
      const { eventId } = await runtime.send({
        target: params.target,
        input: params.input ?? "",
        ...(params.instanceKey === undefined ? {} : { instanceKey: params.instanceKey }),
        ...(params.metadata === undefined ? {} : { metadata: params.metadata }),
      });
      return { accepted: true, eventId };
    },
    catalog: () => runtime.catalog(),
  };
}
