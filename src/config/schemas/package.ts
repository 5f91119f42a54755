/** The JSON Schema of a Package document (the bundle's manifest; first document when present). */
import { envelope, nonEmptyString, TITLES } from "./common.ts";

export const packageSchema = envelope({
  kind: "Package",
  description: "The bundle's manifest: name, version, dependencies. Must be the first document of goondan.yaml.",
  specRequired: false,
  spec: {
    type: "object",
    additionalProperties: false,
    properties: {
      version: { type: "string" },
      description: { type: "string" },
      access: { enum: ["public", "restricted"] },
      dependencies: {
        type: "array",
        items: {
          title: TITLES.dependency,
          anyOf: [
            nonEmptyString,
            {
              type: "object",
              required: ["name"],
              additionalProperties: false,
              properties: { name: nonEmptyString, version: { type: "string" } },
            },
          ],
        },
      },
      registry: { type: "object", required: ["url"], additionalProperties: false, properties: { url: nonEmptyString } },
    },
  },
});
