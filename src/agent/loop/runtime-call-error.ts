/**
 * The error a call through the orchestrator rejects with when it is refused or answered with an error: `ctx.runtime`
 * of a tool (agent/child/runtime-client.ts) and `ctx.agents` of middleware (middleware-agents.ts). It carries the
 * orchestrator's code (`E_AGENT_REQUEST_TIMEOUT`, `E_CIRCULAR_CALL_DETECTED`, `E_RUNTIME_DISCONNECTED`, …).
 */
import { UsageError } from "../../shared/errors.ts";

export class RuntimeCallError extends UsageError {}
