/**
 * The error a call through the orchestrator rejects with when it is refused or answered with an error: `ctx.runtime`
 * of a tool (agent/child/runtime-client.ts) and `ctx.agents` of middleware (middleware-agents.ts). It carries the
 * orchestrator's code (`AGENT_REQUEST_TIMEOUT`, `CIRCULAR_CALL_DETECTED`, `E_RUNTIME_DISCONNECTED`, …).
 */
import { UsageError } from "../../shared/errors.ts";

export class RuntimeCallError extends UsageError {}
