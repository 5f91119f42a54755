/** The JSON Schema of a Tool document: entry, errorMessageLimit, exports and config. */
import { envelope, freeObject, nonEmptyString, positiveInteger } from "./common.ts";

export const toolSchema = envelope({
  kind: "Tool",
  description: "Functions the LLM can call, as `{tool}__{export}`; handlers live in the entry module.",
  spec: {
    type: "object",
    required: ["entry", "exports"],
    additionalProperties: false,
    properties: {
      entry: nonEmptyString,
      errorMessageLimit: { type: "integer", minimum: 20 },
      exports: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          required: ["name"],
          additionalProperties: false,
          properties: {
            name: nonEmptyString,
            description: { type: "string" },
            parameters: freeObject,
            timeoutMs: positiveInteger,
            idempotent: { type: "boolean" },
          },
        },
      },
      config: freeObject,
    },
  },
});
