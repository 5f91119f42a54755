/**
 * `ctx.agents` of turn and step middleware (the public Goondan `MiddlewareAgentsApi`, plus `catalog`): asks
 * or tells other agents of the swarm from an extension, through the same runtime as the `agents` tool, so
 * the orchestrator applies the same routing, call chain (cycles, depth) and deadlines. A request answered
 * with an error, or refused by the orchestrator, rejects with a RuntimeCallError carrying the code.
 */
import type { AgentToolRuntime } from "../../tools/types.ts";
import { RuntimeCallError } from "../child/runtime-client.ts";
import type { MiddlewareAgentsApi } from "./types.ts";

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
