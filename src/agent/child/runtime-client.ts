/**
 * `ctx.runtime` over IPC: each call is a `runtime_call` answered by a `runtime_result` with the same callId.
 * Requests carry a correlationId made here, so a waiter exists before any reply can arrive. A blocking
 * `request` then waits for the `delegate_result` with that correlationId (the orchestrator enforces the
 * deadline; a local guard adds a grace period); an async one returns `{correlationId}` at once and its later
 * `delegate_result` goes to `onUnclaimedResult` (the instance's pending results). Runtime refusals reject with
 * an Error carrying the orchestrator's code (the agents tool turns it into a tool error).
 */
import type { ChildMessage, ChildToParent, ParentToChild, RuntimeMethod } from "../../protocol/ipc-messages.ts";
import { envelope, ORCHESTRATOR } from "../../protocol/ipc-messages.ts";
import type { RestartAnswer } from "../../protocol/restart-answer.ts";
import { failedReply, type Reply } from "../../protocol/turn-outcome.ts";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { newId, type IdGenerator } from "../../shared/ids.ts";
import type { AgentInstanceInfo, AgentListOptions, AgentReply, AgentRequestOptions, AgentSpawnOptions, AgentToolRuntime } from "../../tools/types.ts";
import { UsageError } from "../../shared/errors.ts";

/** The orchestrator refused a runtime call (its code), or the channel to it is gone. */
export class RuntimeCallError extends UsageError {}

export interface RuntimeClientOptions {
  /** `agent/instanceKey` of this child. */
  address: string;
  send: (message: ChildMessage) => void;
  /** The current turn's trace context and call chain. */
  callContext: () => { traceId?: string; parentSpanId?: string; callChain: string[] };
  /** A delegate_result nobody waits for (async requests). */
  onUnclaimedResult: (result: Reply) => void;
  /**
   * Used when a request gives no timeoutMs (the Swarm's `policy.requestTimeoutMs`); default 60000. A function
   * is read at each request, for a value known only once the instance is built.
   */
  defaultTimeoutMs?: number | (() => number | undefined);
  ids?: IdGenerator;
}

export class RuntimeClient implements AgentToolRuntime {
  private readonly calls = new Map<string, { resolve: (value: JsonValue | undefined) => void; reject: (error: Error) => void }>();
  private readonly waiters = new Map<string, (result: Reply) => void>();
  private readonly ids: IdGenerator;

  constructor(private readonly options: RuntimeClientOptions) {
    this.ids = options.ids ?? newId;
  }

  /** Feed `runtime_result` messages here. */
  handleRuntimeResult(result: ParentToChild["runtime_result"]): void {
    const call = this.calls.get(result.callId);
    if (call === undefined) return;
    this.calls.delete(result.callId);
    if (result.ok) call.resolve(result.value);
    else call.reject(new RuntimeCallError(result.error?.code ?? "E_RUNTIME", result.error?.message ?? "runtime call failed"));
  }

  /** Feed `delegate_result` messages here. */
  handleDelegateResult(result: Reply): void {
    const waiter = this.waiters.get(result.correlationId);
    if (waiter === undefined) return this.options.onUnclaimedResult(result);
    this.waiters.delete(result.correlationId);
    waiter(result);
  }

  /** Rejects every outstanding call (the channel is gone). */
  failAll(reason: string): void {
    for (const call of this.calls.values()) call.reject(new RuntimeCallError("E_RUNTIME_DISCONNECTED", reason));
    this.calls.clear();
    for (const [correlationId, waiter] of this.waiters) waiter(failedReply({ correlationId, agent: "", instanceKey: "", error: { code: "E_RUNTIME_DISCONNECTED", message: reason } }));
    this.waiters.clear();
  }

  private call(method: RuntimeMethod, args: JsonObject): Promise<JsonValue | undefined> {
    const callId = this.ids("rtc");
    const context = this.options.callContext();
    const payload: ChildToParent["runtime_call"] = {
      callId,
      method,
      args,
      callChain: context.callChain,
      ...(context.traceId === undefined ? {} : { traceId: context.traceId }),
      ...(context.parentSpanId === undefined ? {} : { parentSpanId: context.parentSpanId }),
    };
    return new Promise((resolve, reject) => {
      this.calls.set(callId, { resolve, reject });
      try {
        this.options.send(envelope("runtime_call", this.options.address, ORCHESTRATOR, payload));
      } catch (error) {
        this.calls.delete(callId);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  request(options: AgentRequestOptions & { async?: false }): Promise<AgentReply>;
  request(options: AgentRequestOptions & { async: true }): Promise<{ correlationId: string }>;
  async request(options: AgentRequestOptions): Promise<AgentReply | { correlationId: string }> {
    const correlationId = this.ids("corr");
    const fallback = this.options.defaultTimeoutMs;
    const timeoutMs = options.timeoutMs ?? (typeof fallback === "function" ? fallback() : fallback) ?? 60_000;
    const args: JsonObject = { target: options.target, input: options.input, correlationId, timeoutMs, async: options.async === true };
    if (options.instanceKey !== undefined) args.instanceKey = options.instanceKey;
    if (options.metadata !== undefined) args.metadata = options.metadata;
    if (options.eventType !== undefined) args.eventType = options.eventType;
    if (options.async === true) {
      await this.call("request", args);
      return { correlationId };
    }
    const reply = new Promise<Reply>((resolve) => {
      const guard = setTimeout(() => {
        if (this.waiters.delete(correlationId)) {
          resolve(failedReply({ correlationId, agent: options.target, instanceKey: options.instanceKey ?? "", error: { code: "AGENT_REQUEST_TIMEOUT", message: `no reply from ${options.target} within ${timeoutMs} ms` } }));
        }
      }, timeoutMs + 5_000);
      this.waiters.set(correlationId, (result) => {
        clearTimeout(guard);
        resolve(result);
      });
    });
    try {
      await this.call("request", args);
    } catch (error) {
      this.waiters.delete(correlationId);
      throw error;
    }
    return reply;
  }

  async send(options: Omit<AgentRequestOptions, "async" | "timeoutMs">): Promise<{ eventId: string }> {
    const args: JsonObject = { target: options.target, input: options.input };
    if (options.instanceKey !== undefined) args.instanceKey = options.instanceKey;
    if (options.metadata !== undefined) args.metadata = options.metadata;
    if (options.eventType !== undefined) args.eventType = options.eventType;
    return (await this.call("send", args)) as { eventId: string };
  }

  async spawn(options: AgentSpawnOptions): Promise<AgentInstanceInfo> {
    const args: JsonObject = { target: options.target };
    if (options.instanceKey !== undefined) args.instanceKey = options.instanceKey;
    if (options.cwd !== undefined) args.cwd = options.cwd;
    return (await this.call("spawn", args)) as unknown as AgentInstanceInfo;
  }

  async list(options: AgentListOptions = {}): Promise<{ instances: AgentInstanceInfo[] }> {
    return (await this.call("list", options.includeAll === true ? { includeAll: true } : {})) as unknown as { instances: AgentInstanceInfo[] };
  }

  async catalog(): Promise<{ agents: { name: string; description?: string; entry: boolean }[] }> {
    return (await this.call("catalog", {})) as unknown as { agents: { name: string; description?: string; entry: boolean }[] };
  }

  async restart(options: { reason: string }): Promise<RestartAnswer> {
    return (await this.call("restart", { reason: options.reason })) as unknown as RestartAnswer;
  }
}
