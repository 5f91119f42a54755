/**
 * `ctx.runtime` as one tool call sees it: the inter-agent API (request, send, spawn, list, catalog, restart) over
 * the child's RuntimeClient, every call carrying this tool call's trace id, span (the parent of whatever turn it
 * starts) and call chain. Requests and sends carry a correlationId made here — derived from the tool call's stable
 * key when it has one, so the same call run again after a restart names the same request and the orchestrator
 * reattaches it instead of sending it twice — and the waiter exists before any reply can arrive; a blocking request then waits for its reply (the orchestrator enforces the deadline; the client adds a
 * grace period), an async one returns `{correlationId}` at once and its reply arrives later as a pending result.
 */
import { createHash } from "node:crypto";
import type { RestartAnswer } from "../../protocol/restart-answer.ts";
import type { JsonObject } from "../../shared/json.ts";
import type {
  AgentInstanceInfo,
  AgentListOptions,
  AgentReply,
  AgentRequestOptions,
  AgentSpawnOptions,
  AgentToolRuntime,
  RuntimeCallContext,
} from "../../tools/types.ts";
import type { Reply } from "../../protocol/turn-outcome.ts";
import type { RuntimeMethod } from "../../protocol/ipc-messages.ts";
import type { JsonValue } from "../../shared/json.ts";

/** What a scoped runtime needs of the child's channel to the orchestrator (runtime-client.ts). */
export interface RuntimeChannel {
  call(method: RuntimeMethod, args: JsonObject, context: RuntimeCallContext): Promise<JsonValue | undefined>;
  newId(prefix: string): string;
  defaultTimeoutMs(): number;
  awaitReply(options: { correlationId: string; agent: string; instanceKey: string; timeoutMs: number }): {
    reply: Promise<Reply>;
    cancel(): void;
  };
}

export class ScopedRuntime implements AgentToolRuntime {
  private sent = 0;

  constructor(
    private readonly client: RuntimeChannel,
    private readonly context: RuntimeCallContext,
  ) {}

  /** The n-th request or send of this tool call: derived from its stable key, else fresh. */
  private nextCorrelationId(): string {
    this.sent += 1;
    if (this.context.callKey === undefined) return this.client.newId("corr");
    return `corr_${createHash("sha256").update(`${this.context.callKey}#${this.sent}`).digest("hex").slice(0, 24)}`;
  }

  request(options: AgentRequestOptions & { async?: false }): Promise<AgentReply>;
  request(options: AgentRequestOptions & { async: true }): Promise<{ correlationId: string }>;
  async request(options: AgentRequestOptions): Promise<AgentReply | { correlationId: string }> {
    const correlationId = this.nextCorrelationId();
    const timeoutMs = options.timeoutMs ?? this.client.defaultTimeoutMs();
    const args: JsonObject = {
      target: options.target,
      input: options.input,
      correlationId,
      timeoutMs,
      async: options.async === true,
    };
    if (options.instanceKey !== undefined) args.instanceKey = options.instanceKey;
    if (options.metadata !== undefined) args.metadata = options.metadata;
    if (options.eventType !== undefined) args.eventType = options.eventType;
    if (options.async === true) {
      await this.call("request", args);
      return { correlationId };
    }
    const waiting = this.client.awaitReply({
      correlationId,
      agent: options.target,
      instanceKey: options.instanceKey ?? "",
      timeoutMs,
    });
    try {
      await this.call("request", args);
    } catch (error) {
      waiting.cancel();
      throw error;
    }
    return waiting.reply;
  }

  async send(options: Omit<AgentRequestOptions, "async" | "timeoutMs">): Promise<{ eventId: string }> {
    const args: JsonObject = { target: options.target, input: options.input, correlationId: this.nextCorrelationId() };
    if (options.instanceKey !== undefined) args.instanceKey = options.instanceKey;
    if (options.metadata !== undefined) args.metadata = options.metadata;
    if (options.eventType !== undefined) args.eventType = options.eventType;
    if (options.notBefore !== undefined) args.notBefore = options.notBefore;
    return (await this.call("send", args)) as { eventId: string };
  }

  async spawn(options: AgentSpawnOptions): Promise<AgentInstanceInfo> {
    const args: JsonObject = { target: options.target };
    if (options.instanceKey !== undefined) args.instanceKey = options.instanceKey;
    if (options.cwd !== undefined) args.cwd = options.cwd;
    return (await this.call("spawn", args)) as unknown as AgentInstanceInfo;
  }

  async list(options: AgentListOptions = {}): Promise<{ instances: AgentInstanceInfo[] }> {
    return (await this.call("list", options.includeAll === true ? { includeAll: true } : {})) as unknown as {
      instances: AgentInstanceInfo[];
    };
  }

  async catalog(): Promise<{ agents: { name: string; description?: string; entry: boolean }[] }> {
    return (await this.call("catalog", {})) as unknown as {
      agents: { name: string; description?: string; entry: boolean }[];
    };
  }

  async restart(options: { reason: string }): Promise<RestartAnswer> {
    return (await this.call("restart", { reason: options.reason })) as unknown as RestartAnswer;
  }

  private call(method: RuntimeMethod, args: JsonObject) {
    return this.client.call(method, args, this.context);
  }
}
