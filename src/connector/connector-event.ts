/**
 * The event a connector emits (the public Goondan `ConnectorEvent` shape): a name from
 * `Connector.spec.events`, a message, string-ish properties and an optional instanceKey. This file
 * owns the type and its validation at the process boundary, where the connector's code is not trusted.
 */
import type { JsonObject } from "../shared/json.ts";
import { isJsonObject } from "../shared/json.ts";

export type ConnectorEventMessage =
  | { type: "text"; text: string }
  | { type: "image"; url: string }
  | { type: "file"; url: string; name: string };

export interface ConnectorEvent {
  name: string;
  message: ConnectorEventMessage;
  properties: Record<string, string | number | boolean>;
  /** The connector's own routing key; a Connection rule may override it. */
  instanceKey?: string;
}

/** Checks an untrusted value; returns the event or a reason it is not one. */
export function parseConnectorEvent(value: unknown): { event: ConnectorEvent } | { error: string } {
  if (!isJsonObject(value)) return { error: `expected an object, got ${value === null ? "null" : typeof value}` };
  const { name, message, properties, instanceKey } = value;
  if (typeof name !== "string" || name === "") return { error: "expected name to be a non-empty string" };
  const parsedMessage = parseMessage(message);
  if ("error" in parsedMessage) return parsedMessage;
  if (properties !== undefined && !isJsonObject(properties)) return { error: "expected properties to be an object" };
  const cleanProperties: ConnectorEvent["properties"] = {};
  for (const [key, property] of Object.entries((properties ?? {}) as JsonObject)) {
    if (typeof property !== "string" && typeof property !== "number" && typeof property !== "boolean") {
      return { error: `expected properties.${key} to be a string, number or boolean` };
    }
    cleanProperties[key] = property;
  }
  if (instanceKey !== undefined && (typeof instanceKey !== "string" || instanceKey === ""))
    return { error: "expected instanceKey to be a non-empty string" };
  return {
    event: {
      name,
      message: parsedMessage.message,
      properties: cleanProperties,
      ...(instanceKey !== undefined ? { instanceKey } : {}),
    },
  };
}

function parseMessage(value: unknown): { message: ConnectorEventMessage } | { error: string } {
  if (typeof value === "string") return { message: { type: "text", text: value } };
  if (!isJsonObject(value)) return { error: 'expected message to be {type: "text", text}' };
  if (value.type === "text" && typeof value.text === "string") return { message: { type: "text", text: value.text } };
  if (value.type === "image" && typeof value.url === "string") return { message: { type: "image", url: value.url } };
  if (value.type === "file" && typeof value.url === "string" && typeof value.name === "string")
    return { message: { type: "file", url: value.url, name: value.name } };
  return {
    error: `expected message.type to be text, image or file with its fields, got ${JSON.stringify(value.type)}`,
  };
}

/** The agent's input text for an event: the text, or a one-line description of an attachment. */
export function eventInputText(event: ConnectorEvent): string {
  const message = event.message;
  if (message.type === "text") return message.text;
  if (message.type === "image") return `[image] ${message.url}`;
  return `[file ${message.name}] ${message.url}`;
}
