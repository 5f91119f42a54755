/**
 * The agent child's end of `ctx.runtime`: each call is a `runtime_call` answered by a `runtime_result` with the same
 * callId; replies to requests (`delegate_result`) go to the waiter of their correlationId, or, when nobody waits (an
 * async request), to `onUnclaimedResult` (the instance's pending results). `scoped(context)` gives a tool call its
 * own AgentToolRuntime carrying that call's trace context and call chain (scoped-runtime.ts), so no shared state says
 * which tool is running. Runtime refusals reject with an Error carrying the orchestrator's code.
 */
import type { ChildMessage, ChildToParent, ParentToChild, RuntimeMethod } from "../../protocol/ipc-messages.ts";
import { envelope, ORCHESTRATOR } from "../../protocol/ipc-messages.ts";
import { failedReply, type Reply } from "../../protocol/turn-outcome.ts";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { newId, type IdGenerator } from "../../shared/ids.ts";
import type { AgentToolRuntime, RuntimeCallContext } from "../../tools/types.ts";
import { RuntimeCallError } from "../loop/runtime-call-error.ts";
import { ScopedRuntime, type RuntimeChannel } from "./scoped-runtime.ts";

export interface RuntimeClientOptions {
  /** `agent/instanceKey` of this child. */
  address: string;
  send: (message: ChildMessage) => void;
  /** A delegate_result nobody waits for (async requests). */
  onUnclaimedResult: (result: Reply) => void;
  /**
   * Used when a request gives no timeoutMs (the Swarm's `policy.requestTimeoutMs`); default 60000. A function
   * is read at each request, for a value known only once the instance is built.
   */
  defaultTimeoutMs?: number | (() => number | undefined);
  ids?: IdGenerator;
}

export class RuntimeClient implements RuntimeChannel {
  private readonly calls = new Map<
    string,
    { resolve: (value: JsonValue | undefined) => void; reject: (error: Error) => void }
  >();
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
    else
      call.reject(
        new RuntimeCallError(result.error?.code ?? "E_RUNTIME", result.error?.message ?? "runtime call failed"),
      );
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
    for (const [correlationId, waiter] of this.waiters)
      waiter(
        failedReply({
          correlationId,
          agent: "",
          instanceKey: "",
          error: { code: "E_RUNTIME_DISCONNECTED", message: reason },
        }),
      );
    this.waiters.clear();
  }

  /** An AgentToolRuntime whose calls carry `context` (one tool call's trace and call chain). */
  scoped(context: RuntimeCallContext): AgentToolRuntime {
    return new ScopedRuntime(this, context);
  }

  /** A fresh id (`corr_…` for a request's correlationId). */
  newId(prefix: string): string {
    return this.ids(prefix);
  }

  /** The request timeout when a call names none: the Swarm's `policy.requestTimeoutMs`, else 60000. */
  defaultTimeoutMs(): number {
    const fallback = this.options.defaultTimeoutMs;
    return (typeof fallback === "function" ? fallback() : fallback) ?? 60_000;
  }

  /** Waits for the reply of `correlationId`, or a local timeout reply a grace period after `timeoutMs`. Register before calling. */
  awaitReply(options: { correlationId: string; agent: string; instanceKey: string; timeoutMs: number }): {
    reply: Promise<Reply>;
    cancel(): void;
  } {
    const { correlationId } = options;
    const reply = new Promise<Reply>((resolve) => {
      const guard = setTimeout(() => {
        if (this.waiters.delete(correlationId)) {
          resolve(
            failedReply({
              correlationId,
              agent: options.agent,
              instanceKey: options.instanceKey,
              error: {
                code: "E_AGENT_REQUEST_TIMEOUT",
                message: `no reply from ${options.agent} within ${options.timeoutMs} ms`,
              },
            }),
          );
        }
      }, options.timeoutMs + 5_000);
      this.waiters.set(correlationId, (result) => {
        clearTimeout(guard);
        resolve(result);
      });
    });
    return { reply, cancel: () => void this.waiters.delete(correlationId) };
  }

  /** Sends one runtime call; resolves with its value, rejects with the orchestrator's refusal. */
  call(method: RuntimeMethod, args: JsonObject, context: RuntimeCallContext): Promise<JsonValue | undefined> {
    const callId = this.ids("rtc");
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
}
