/**
 * Request/reply between the nodes of a swarm over NATS core subjects, with JSON payloads of the shapes that
 * already cross our process boundaries (src/protocol: AgentEvent, Reply, ErrorInfo):
 *   - `gdn.<swarm>.node.<node>.<kind>`: ask one node (deliver a Reply to an instance it runs, place an
 *     instance, …); the kinds and their shapes are the NodeRequests map;
 *   - `gdn.<swarm>.instance.<agent>.<key>`: ask whichever node owns an instance (only the owner subscribes).
 * Every request ends in one typed outcome, never a throw: `ok`, `refused` (the handler answered an error),
 * `no_responders` (nobody subscribes: no live owner — known at once, so the caller claims or places the
 * instance and retries once), `timeout`, or `unavailable` (this node's connection is closed or draining).
 */
import { RequestError, TimeoutError, type Msg, type Subscription } from "@nats-io/transport-node";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import { errorInfo, type ErrorInfo } from "../../protocol/error-info.ts";
import type { Reply } from "../../protocol/turn-outcome.ts";
import { describe } from "../../shared/errors.ts";
import type { ClusterConnection } from "./connection.ts";
import { clusterUnavailable } from "./errors.ts";
import { clusterNames, type ClusterNames } from "./names.ts";

export type RequestOutcome<T> =
  | { status: "ok"; value: T }
  | { status: "refused"; error: ErrorInfo }
  | { status: "no_responders" }
  | { status: "timeout" }
  | { status: "unavailable"; error: ErrorInfo };

/** What one node asks another, by kind: the request's and the answer's shapes. */
export type NodeRequests = {
  /** A reply for an instance this node runs (the requester of an `agents__request`). */
  reply: { request: Reply; response: { delivered: boolean } };
  /** Claim an unowned instance and start it here. */
  place: { request: { agent: string; instanceKey: string }; response: { owner: string } };
};

export type RequestMap = Record<string, { request: unknown; response: unknown }>;

/** The owner took an event for one of its instances. */
export interface InstanceReceipt {
  eventId: string;
}

export interface Served {
  stop(): void;
}

/** On the wire, every answer is one of these. */
type Answer = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };

export interface ClusterMessengerOptions {
  connection: ClusterConnection;
  swarm: string;
  /** Default wait for an answer. Default 5000. */
  timeoutMs?: number;
}

export class ClusterMessenger<Api extends RequestMap = NodeRequests> {
  private readonly names: ClusterNames;
  private readonly timeoutMs: number;

  constructor(private readonly options: ClusterMessengerOptions) {
    this.names = clusterNames(options.swarm);
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /** Answer `kind` requests to `node`; resolves once the server has the subscription, so requests reach it. */
  serveNode<K extends keyof Api & string>(
    node: string,
    kind: K,
    handler: (request: Api[K]["request"]) => Promise<Api[K]["response"]>,
  ): Promise<Served> {
    return this.serve(this.names.nodeSubject(node, kind), handler as (request: unknown) => Promise<unknown>);
  }

  /** Answer for an instance this node owns; resolves once the server has the subscription. */
  serveInstance(
    agent: string,
    instanceKey: string,
    handler: (event: AgentEvent) => Promise<InstanceReceipt>,
  ): Promise<Served> {
    return this.serve(
      this.names.instanceSubject(agent, instanceKey),
      handler as (request: unknown) => Promise<unknown>,
    );
  }

  requestNode<K extends keyof Api & string>(
    node: string,
    kind: K,
    request: Api[K]["request"],
    options: { timeoutMs?: number } = {},
  ): Promise<RequestOutcome<Api[K]["response"]>> {
    return this.request(this.names.nodeSubject(node, kind), request, options.timeoutMs);
  }

  requestInstance(
    agent: string,
    instanceKey: string,
    event: AgentEvent,
    options: { timeoutMs?: number } = {},
  ): Promise<RequestOutcome<InstanceReceipt>> {
    return this.request(this.names.instanceSubject(agent, instanceKey), event, options.timeoutMs);
  }

  private async serve(subject: string, handler: (request: unknown) => Promise<unknown>): Promise<Served> {
    const subscription: Subscription = this.options.connection.nc.subscribe(subject, {
      callback: (error, message) => {
        if (error === null) void answer(message, handler);
      },
    });
    const stop = () => subscription.unsubscribe();
    try {
      await this.options.connection.nc.flush();
    } catch (error) {
      stop();
      throw clusterUnavailable(`subscribing to ${subject}`, error);
    }
    return { stop };
  }

  private async request<T>(subject: string, payload: unknown, timeoutMs = this.timeoutMs): Promise<RequestOutcome<T>> {
    let message: Msg;
    try {
      message = await this.options.connection.nc.request(subject, JSON.stringify(payload), { timeout: timeoutMs });
    } catch (error) {
      if (error instanceof RequestError && error.isNoResponders()) return { status: "no_responders" };
      if (error instanceof TimeoutError || (error as Error)?.cause instanceof TimeoutError)
        return { status: "timeout" };
      return {
        status: "unavailable",
        error: errorInfo({
          code: "E_CLUSTER_UNAVAILABLE",
          message: `request on ${subject}: ${describe(error).message}`,
        }),
      };
    }
    let answer: Answer;
    try {
      answer = message.json<Answer>();
    } catch {
      return {
        status: "refused",
        error: errorInfo({ code: "E_CLUSTER_BAD_MESSAGE", message: `the answer on ${subject} is not JSON` }),
      };
    }
    return answer.ok ? { status: "ok", value: answer.value as T } : { status: "refused", error: answer.error };
  }
}

async function answer(message: Msg, handler: (request: unknown) => Promise<unknown>): Promise<void> {
  let reply: Answer;
  let request: unknown;
  try {
    request = message.json();
  } catch {
    respond(message, {
      ok: false,
      error: errorInfo({ code: "E_CLUSTER_BAD_MESSAGE", message: `the request on ${message.subject} is not JSON` }),
    });
    return;
  }
  try {
    reply = { ok: true, value: (await handler(request)) ?? null };
  } catch (error) {
    const described = describe(error);
    reply = {
      ok: false,
      error: errorInfo({
        code: described.code ?? "E_CLUSTER_HANDLER_FAILED",
        message: described.message,
        ...(described.suggestion === undefined ? {} : { suggestion: described.suggestion }),
      }),
    };
  }
  respond(message, reply);
}

/**
 * Sends the answer; never throws (an answer is sent from a subscription's callback, where a throw would be an
 * unhandled rejection and end the node). An answer the server would not carry (past its `max_payload`) is
 * replaced by a refusal naming its size, so the asker learns why at once instead of waiting out its timeout; when
 * even that cannot be sent (the connection is closing), the asker times out.
 */
function respond(message: Msg, reply: Answer): void {
  const json = JSON.stringify(reply);
  try {
    message.respond(json);
  } catch (error) {
    const bytes = Buffer.byteLength(json, "utf8");
    const refusal: Answer = {
      ok: false,
      error: errorInfo({
        code: "E_CLUSTER_ANSWER_TOO_LARGE",
        message: `the answer on ${message.subject} (${bytes} bytes of JSON) could not be sent: ${describe(error).message}`,
      }),
    };
    try {
      message.respond(JSON.stringify(refusal));
    } catch {
      // The connection is closing: nothing can be sent; the asker times out.
    }
  }
}
