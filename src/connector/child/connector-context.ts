/**
 * The `ctx` a connector's entry function receives, inside the connector child (the public Goondan
 * ConnectorContext plus `request` for connectors that print replies, like `cli`): `emit` resolves
 * once the orchestrator has durably accepted the event, `request` once the routed turn has replied.
 * `request` may ask for the turn's progress on the way. Owns the table of emitted events waiting for their ack,
 * progress or reply; the entry script feeds it messages.
 */
import type { ChildToParent, ConnectorStartPayload, ParentToChild } from "../../protocol/ipc-messages.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { ConnectorEvent } from "../connector-event.ts";
import type { ConnectorContext, ConnectorLogger, ConnectorReply, ConnectorRequestOptions } from "../connector-types.ts";

export type { ConnectorContext, ConnectorLogger, ConnectorReply } from "../connector-types.ts";
import { UsageError } from "../../shared/errors.ts";

/** The orchestrator refused an emitted event, or the connector is shutting down. */
export class ConnectorEmitError extends UsageError {}

interface Waiting {
  wantsReply: boolean;
  onProgress?: ConnectorRequestOptions["onProgress"];
  accept: (value: { eventId: string }) => void;
  reply: (value: ConnectorReply) => void;
  fail: (error: Error) => void;
}

export interface ConnectorContextHost {
  context: ConnectorContext;
  /** Feed `connector_ack` / `connector_progress` / `connector_reply` messages from the parent. */
  handle<K extends "connector_ack" | "connector_progress" | "connector_reply">(
    type: K,
    payload: ParentToChild[K],
  ): void;
  /** Feed `connector_approval_result` messages from the parent. */
  handleApproval(payload: ParentToChild["connector_approval_result"]): void;
  /** Aborts the signal and runs shutdown handlers; fails every event still waiting. */
  shutdown(reason: string): Promise<void>;
}

export interface CreateConnectorContextOptions {
  start: ConnectorStartPayload;
  /** Sends `connector_event` to the orchestrator. */
  send: (payload: { requestId: string; event: JsonValue; wantsReply: boolean; wantsProgress?: boolean }) => void;
  /** Sends `connector_approval` to the orchestrator (absent: ctx.approvals is absent). */
  sendApproval?: (payload: ChildToParent["connector_approval"]) => void;
  logger: ConnectorLogger;
}

export function createConnectorContext(options: CreateConnectorContextOptions): ConnectorContextHost {
  const waiting = new Map<string, Waiting>();
  const controller = new AbortController();
  const shutdownHandlers: (() => void | Promise<void>)[] = [];
  let sequence = 0;

  const submit = (event: ConnectorEvent, wantsReply: boolean, onProgress?: ConnectorRequestOptions["onProgress"]) =>
    new Promise<{ eventId: string } | ConnectorReply>((resolve, reject) => {
      if (controller.signal.aborted)
        return reject(new ConnectorEmitError("E_CONNECTOR_STOPPED", "the connector is shutting down"));
      const requestId = `c${++sequence}`;
      waiting.set(requestId, {
        wantsReply,
        accept: resolve,
        reply: resolve,
        fail: reject,
        ...(onProgress ? { onProgress } : {}),
      });
      options.send({
        requestId,
        event: event as unknown as JsonValue,
        wantsReply,
        ...(onProgress ? { wantsProgress: true } : {}),
      });
    });

  const approvalWaiters = new Map<
    string,
    { resolve: (payload: ParentToChild["connector_approval_result"]) => void; reject: (error: Error) => void }
  >();
  const askApproval = (request: Omit<ChildToParent["connector_approval"], "requestId">) =>
    new Promise<ParentToChild["connector_approval_result"]>((resolve, reject) => {
      if (controller.signal.aborted || options.sendApproval === undefined)
        return reject(new ConnectorEmitError("E_CONNECTOR_STOPPED", "the connector is shutting down"));
      const requestId = `a${++sequence}`;
      approvalWaiters.set(requestId, { resolve, reject });
      options.sendApproval({ requestId, ...request });
    }).then((answer) => {
      if (answer.error !== undefined || answer.approval === undefined)
        throw new ConnectorEmitError(
          answer.error?.code ?? "E_APPROVAL_FAILED",
          answer.error?.message ?? "no approval in the answer",
        );
      return { approval: answer.approval, ...(answer.outcome === undefined ? {} : { outcome: answer.outcome }) };
    });

  const context: ConnectorContext = {
    emit: (event) => submit(event, false) as Promise<{ eventId: string }>,
    request: (event, requestOptions) => submit(event, true, requestOptions?.onProgress) as Promise<ConnectorReply>,
    config: options.start.config,
    secrets: options.start.secrets,
    logger: options.logger,
    connection: options.start.connection,
    signal: controller.signal,
    onShutdown: (handler) => {
      shutdownHandlers.push(handler);
    },
    ...(options.sendApproval === undefined
      ? {}
      : {
          approvals: {
            get: async (id: string) => (await askApproval({ id })).approval,
            decide: (id: string, decision: { decision: "approve" | "deny"; reason?: string }) =>
              askApproval({ id, ...decision }),
          },
        }),
  };

  return {
    context,
    handle(type, payload) {
      const entry = waiting.get(payload.requestId);
      if (!entry) return;
      if (type === "connector_progress") {
        try {
          entry.onProgress?.((payload as ParentToChild["connector_progress"]).progress);
        } catch (error) {
          options.logger.warn("onProgress threw", error instanceof Error ? error.message : String(error));
        }
        return;
      }
      if (type === "connector_ack") {
        const ack = payload as ParentToChild["connector_ack"];
        if (!ack.accepted) {
          waiting.delete(ack.requestId);
          entry.fail(
            new ConnectorEmitError(
              ack.error?.code ?? "E_CONNECTOR_REFUSED",
              ack.error?.message ?? "the orchestrator refused the event",
            ),
          );
        } else if (!entry.wantsReply) {
          waiting.delete(ack.requestId);
          entry.accept({ eventId: ack.eventId ?? "" });
        }
        return;
      }
      const { requestId, ...outcome } = payload as ParentToChild["connector_reply"];
      waiting.delete(requestId);
      entry.reply(outcome);
    },
    handleApproval(payload) {
      const waiter = approvalWaiters.get(payload.requestId);
      approvalWaiters.delete(payload.requestId);
      waiter?.resolve(payload);
    },
    async shutdown(reason) {
      if (!controller.signal.aborted) controller.abort(new Error(reason));
      for (const waiter of approvalWaiters.values())
        waiter.reject(new ConnectorEmitError("E_CONNECTOR_STOPPED", `the connector is shutting down (${reason})`));
      approvalWaiters.clear();
      for (const entry of waiting.values())
        entry.fail(new ConnectorEmitError("E_CONNECTOR_STOPPED", `the connector is shutting down (${reason})`));
      waiting.clear();
      for (const handler of shutdownHandlers.splice(0)) {
        try {
          await handler();
        } catch (error) {
          options.logger.warn("shutdown handler failed", error instanceof Error ? error.message : String(error));
        }
      }
    },
  };
}
