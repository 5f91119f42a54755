/** The JSON Schema of a Model document: provider, model, apiKey, endpoint, options, pricing. */
import { MODEL_PROVIDERS } from "../defaults.ts";
import { envelope, freeObject, nonEmptyString, nonNegativeNumber, ref } from "./common.ts";
import { rateLimitSchema } from "./limits.ts";

export const modelSchema = envelope({
  kind: "Model",
  description: "An LLM provider setting.",
  spec: {
    type: "object",
    required: ["provider", "model"],
    additionalProperties: false,
    properties: {
      provider: { enum: [...MODEL_PROVIDERS] },
      model: nonEmptyString,
      apiKey: ref("valueSource"),
      endpoint: { type: "string", pattern: "^https?://" },
      options: freeObject,
      capabilities: { type: "object", additionalProperties: { type: "boolean" } },
      pricing: {
        type: "object",
        description: "US dollars per million tokens, for the costs `goondan eval` reports.",
        required: ["inputPerMillion", "outputPerMillion"],
        additionalProperties: false,
        properties: { inputPerMillion: nonNegativeNumber, outputPerMillion: nonNegativeNumber },
      },
      rateLimit: rateLimitSchema,
    },
    allOf: [
      {
        if: { properties: { provider: { const: "replay" } }, required: ["provider"] },
        then: {
          required: ["options"],
          properties: { options: { type: "object", required: ["cassette"], properties: { cassette: nonEmptyString } } },
        },
      },
      {
        if: { properties: { provider: { const: "openai-compatible" } }, required: ["provider"] },
        then: { required: ["endpoint"] },
      },
    ],
  },
});
