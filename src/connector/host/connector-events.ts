/**
 * What happens to one event a connector child emits: it is checked (the child's code is not trusted), routed by
 * the Connection's ingress rules, handed to the agents (`ingest`, durable before it resolves), acknowledged to the
 * child with its eventId — or refused with a code — and, when the child asked for them, followed by the progress
 * of the turn it started (tool calls, its delegations' too) and answered with that turn's outcome.
 */
import { describe } from "../../shared/errors.ts";
import type { ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import { failedOutcome, type TurnOutcome } from "../../protocol/turn-outcome.ts";
import { eventInputText, parseConnectorEvent } from "../connector-event.ts";
import type { ConnectorIngest, ConnectorRunSpec } from "./connector-run-spec.ts";
import { routeEvent } from "./ingress-router.ts";

export interface ConnectorEventOptions {
  spec: ConnectorRunSpec;
  payload: ChildToParent["connector_event"];
  ingest: ConnectorIngest;
  /** Sends a message to the connector child. */
  send<K extends "connector_ack" | "connector_reply" | "connector_progress">(type: K, payload: ParentToChild[K]): void;
}

export async function handleConnectorEvent(options: ConnectorEventOptions): Promise<void> {
  const { spec, payload, send } = options;
  const refuse = (code: string, message: string) =>
    send("connector_ack", { requestId: payload.requestId, accepted: false, error: { code, message } });
  const parsed = parseConnectorEvent(payload.event);
  if ("error" in parsed) return void refuse("E_CONNECTOR_EVENT_INVALID", parsed.error);
  const event = parsed.event;
  const route = routeEvent({
    event,
    rules: spec.rules,
    entryAgent: spec.entryAgent,
    swarmInstanceKey: spec.swarmInstanceKey,
  });
  if (!route)
    return void refuse(
      "E_CONNECTOR_NO_ROUTE",
      `no ingress rule of Connection/${spec.connection} matches event ${JSON.stringify(event.name)}`,
    );
  let accepted: Awaited<ReturnType<ConnectorIngest>>;
  try {
    accepted = await options.ingest({
      connection: spec.connection,
      agent: route.agent,
      instanceKey: route.instanceKey,
      input: eventInputText(event),
      type: `connector.${event.name}`,
      metadata: {
        connector: spec.connector,
        connection: spec.connection,
        event: event.name,
        properties: event.properties,
        message: event.message,
      },
      wantsReply: payload.wantsReply,
      ...(payload.wantsProgress === true
        ? { onProgress: (progress) => send("connector_progress", { requestId: payload.requestId, progress }) }
        : {}),
    });
  } catch (error) {
    const described = describe(error);
    return void refuse(described.code ?? "E_CONNECTOR_INGEST_FAILED", described.message);
  }
  send("connector_ack", { requestId: payload.requestId, accepted: true, eventId: accepted.eventId });
  if (!payload.wantsReply) return;
  send("connector_reply", { requestId: payload.requestId, ...(await replyOf(accepted)) });
}

async function replyOf(accepted: Awaited<ReturnType<ConnectorIngest>>): Promise<TurnOutcome> {
  const failed = (code: string, message: string) =>
    failedOutcome({ agent: "", instanceKey: "", eventId: accepted.eventId, error: { code, message } });
  if (!accepted.reply) return failed("E_CONNECTOR_NO_REPLY", "the orchestrator gave no reply for this event");
  try {
    return await accepted.reply;
  } catch (error) {
    const described = describe(error);
    return failed(described.code ?? "E_CONNECTOR_REPLY_FAILED", described.message);
  }
}
