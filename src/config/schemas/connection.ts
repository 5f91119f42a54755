/** The JSON Schema of a Connection document: connector, swarm, config, secrets, verify and ingress rules. */
import { envelope, nonEmptyString, ref } from "./common.ts";

export const connectionSchema = envelope({
  kind: "Connection",
  description: "Binds a Connector to a Swarm and routes its events to agents.",
  spec: {
    type: "object",
    required: ["connectorRef"],
    additionalProperties: false,
    properties: {
      connectorRef: ref("refItem"),
      swarmRef: ref("refItem"),
      config: {
        type: "object",
        additionalProperties: { if: { type: "object", required: ["valueFrom"] }, then: ref("valueSource") },
      },
      secrets: { type: "object", additionalProperties: ref("valueSource") },
      verify: {
        type: "object",
        additionalProperties: false,
        description: "How the connector verifies inbound requests.",
        properties: {
          webhook: {
            type: "object",
            required: ["signingSecret"],
            additionalProperties: false,
            description: "Webhook signature verification: every request must be signed with this secret.",
            properties: {
              signingSecret: ref("valueSource"),
            },
          },
        },
      },
      ingress: {
        type: "object",
        additionalProperties: false,
        properties: {
          rules: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              properties: {
                match: {
                  type: "object",
                  additionalProperties: false,
                  properties: { event: nonEmptyString, properties: { type: "object" } },
                },
                route: {
                  type: "object",
                  additionalProperties: false,
                  properties: {
                    agentRef: ref("refItem"),
                    instanceKey: nonEmptyString,
                    instanceKeyProperty: nonEmptyString,
                    instanceKeyPrefix: { type: "string" },
                  },
                },
                signal: { type: "string", minLength: 1, maxLength: 200, pattern: "^[a-z0-9._-]+$" },
              },
            },
          },
        },
      },
    },
  },
});
