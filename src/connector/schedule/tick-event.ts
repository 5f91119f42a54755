/**
 * One tick as the event the agents receive: a `tick` connector event whose properties are the tick's fields
 * (connection, tickAt, and date, time and timezone as read in the schedule's zone), routed by the Connection's
 * ingress rules like any connector's event, its input the Connection's template filled with those fields, and its
 * id stable: `tick-<connection>-<due time in ms, 13 digits>`, so that accepting the same tick twice is one event.
 * A tick fired by hand (`goondan schedules run`) gets `run-<connection>-<ms>` and leaves the schedule's record alone.
 */
import type { IngressRule } from "../../config/types.ts";
import {
  fillTemplate,
  SCHEDULE_CONNECTOR_NAME,
  SCHEDULE_TICK_EVENT,
  type ScheduleSettings,
} from "../../config/schedule-settings.ts";
import type { ConnectorEvent } from "../connector-event.ts";
import { routeEvent } from "../host/ingress-router.ts";
import type { ConnectorIngestRequest } from "../host/connector-run-spec.ts";

export interface ScheduleSpec {
  connection: string;
  settings: ScheduleSettings;
  rules: IngressRule[];
  entryAgent: string;
  swarmInstanceKey: string;
}

const TIME_DIGITS = 13;

/** The id prefix of a Connection's scheduled ticks: the newest id under it is its newest accepted tick. */
export function tickIdPrefix(connection: string): string {
  return `tick-${connection}-`;
}

/** What to ask the store (Store.newestEventId) for the newest tick of `connection`. */
export function newestTickQuery(connection: string): { prefix: string; length: number } {
  const prefix = tickIdPrefix(connection);
  return { prefix, length: prefix.length + TIME_DIGITS };
}

/** The due time a tick id of `connection` stands for, or undefined when the id is not one of its ticks. */
export function tickTimeOf(connection: string, eventId: string): number | undefined {
  const prefix = tickIdPrefix(connection);
  const tail = eventId.slice(prefix.length);
  return eventId.startsWith(prefix) && /^\d+$/.test(tail) && tail.length === TIME_DIGITS ? Number(tail) : undefined;
}

/** The event id of `connection`'s tick due at `at`. */
export function tickId(connection: string, at: number): string {
  return `${tickIdPrefix(connection)}${String(at).padStart(TIME_DIGITS, "0")}`;
}

/** The tick's fields, as a template and the ingress rules see them. */
export function tickFields(spec: ScheduleSpec, at: number): Record<string, string> {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone: spec.settings.timezone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(new Date(at))
      .map((part) => [part.type, part.value]),
  );
  return {
    connection: spec.connection,
    tickAt: new Date(at).toISOString(),
    date: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}:${parts.second}`,
    timezone: spec.settings.timezone,
  };
}

/** The ingest request of the tick due at `at`, or undefined when no ingress rule of the Connection takes it. */
export function tickEvent(options: {
  spec: ScheduleSpec;
  at: number;
  manual?: boolean;
}): ConnectorIngestRequest | undefined {
  const { spec, at } = options;
  const fields = tickFields(spec, at);
  const input = fillTemplate(spec.settings.input, fields);
  const event: ConnectorEvent = {
    name: SCHEDULE_TICK_EVENT,
    message: { type: "text", text: input },
    properties: fields,
  };
  const route = routeEvent({
    event,
    rules: spec.rules,
    entryAgent: spec.entryAgent,
    swarmInstanceKey: spec.swarmInstanceKey,
  });
  if (route === undefined) return undefined;
  return {
    connection: spec.connection,
    eventId: options.manual ? `run-${spec.connection}-${at}` : tickId(spec.connection, at),
    agent: route.agent,
    instanceKey: route.instanceKey,
    input,
    type: `connector.${SCHEDULE_TICK_EVENT}`,
    metadata: {
      connector: SCHEDULE_CONNECTOR_NAME,
      connection: spec.connection,
      event: SCHEDULE_TICK_EVENT,
      properties: fields,
      message: event.message,
      ...(options.manual ? { manual: true } : {}),
    },
    wantsReply: false,
  };
}
