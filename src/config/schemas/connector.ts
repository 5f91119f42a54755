/** The JSON Schema of a Connector document: entry and the events it emits. */
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
