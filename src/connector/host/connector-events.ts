/**
 * What happens to one event a connector child emits: it is checked (the child's code is not trusted), routed by
 * the Connection's ingress rules, handed to the agents (`ingest`, durable before it resolves), acknowledged to the
 * child with its eventId — or refused with a code — and, when the child asked for them, followed by the progress
 * of the turn it started (tool calls, its delegations' too) and answered with that turn's outcome.
 */
import { describe } from "../../shared/errors.ts";
import type { ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import { failedOutcome, type TurnOutcome } from "../../protocol/turn-outcome.ts";
import { eventInputText, parseConnectorEvent, type ConnectorEvent } from "../connector-event.ts";
import type { ConnectorApprovals, ConnectorIngest, ConnectorRunSpec } from "./connector-run-spec.ts";
import { routeEvent } from "./ingress-router.ts";

export interface ConnectorEventOptions {
  spec: ConnectorRunSpec;
  payload: ChildToParent["connector_event"];
  ingest: ConnectorIngest;
  /** Where an event a `signal` rule matched goes (the orchestrator's signals); absent: such events are refused. */
  signal?: ConnectorApprovals["signal"];
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
  if (route.signal !== undefined) return deliverSignal({ ...options, name: route.signal, event, refuse });
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

/**
 * An event a `signal` rule matched wakes the turns waiting for that signal, its payload `{event, text, properties}`,
 * exactly as `POST /v1/signals/:name` does; acknowledged with the id of the first event resumed. Nobody waiting is
 * refused `E_SIGNAL_NOT_FOUND`, so the sender knows it reached no one (nothing is kept).
 */
async function deliverSignal(
  options: ConnectorEventOptions & {
    name: string;
    event: ConnectorEvent;
    refuse: (code: string, message: string) => void;
  },
): Promise<void> {
  const { payload, event, refuse, name } = options;
  if (payload.wantsReply)
    return void refuse("E_CONNECTOR_NO_REPLY", "a signal starts no turn of its own to reply with");
  if (options.signal === undefined) return void refuse("E_SIGNALS_UNAVAILABLE", "this orchestrator takes no signals");
  let answer: Awaited<ReturnType<NonNullable<ConnectorApprovals["signal"]>>>;
  try {
    answer = await options.signal(name, {
      event: event.name,
      text: eventInputText(event),
      properties: event.properties,
    });
  } catch (error) {
    const described = describe(error);
    return void refuse(described.code ?? "E_CONNECTOR_INGEST_FAILED", described.message);
  }
  if (answer.type === "missing")
    return void refuse(
      "E_SIGNAL_NOT_FOUND",
      `no turn waits for signal ${JSON.stringify(name)} (Connection/${options.spec.connection}, event ${JSON.stringify(event.name)}); it was not kept`,
    );
  const [first] = answer.approvals;
  options.send("connector_ack", { requestId: payload.requestId, accepted: true, eventId: first?.eventId ?? "" });
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
