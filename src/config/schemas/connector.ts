/**
 * The JSON Schema of a Connector document: entry, the events it emits, and its process's sandbox (`network`: none
 * by default, host for a connector that talks to the world; `isolation`: auto, required or none).
 */
import { envelope, nonEmptyString } from "./common.ts";

export const connectorSchema = envelope({
  kind: "Connector",
  description: "A separate process that turns an external protocol into events.",
  spec: {
    type: "object",
    required: ["entry", "events"],
    additionalProperties: false,
    properties: {
      entry: nonEmptyString,
      network: {
        enum: ["none", "host"],
        description:
          "none (default): the connector process gets a network namespace of its own (no daemon API, no other host); host: the machine's network, for connectors that listen or call out.",
      },
      isolation: {
        enum: ["auto", "required", "none"],
        description:
          "auto (default): the connector runs in its own sandbox (PID and network namespaces, no capabilities, state root hidden) where the machine allows it, else as is with a warning; required: not at all otherwise; none: never isolated.",
      },
      events: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          required: ["name"],
          additionalProperties: false,
          properties: {
            name: nonEmptyString,
            aliases: {
              type: "array",
              items: nonEmptyString,
              description: "Older names an ingress rule may still match this event by.",
            },
            nameFromConfig: {
              ...nonEmptyString,
              description: "A Connection `config` key whose value, when set, is the event's name instead of `name`.",
            },
            description: { type: "string" },
            properties: {
              type: "object",
              additionalProperties: { type: "object", required: ["type"], properties: { type: nonEmptyString } },
            },
          },
        },
      },
    },
  },
});
