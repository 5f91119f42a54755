/** The JSON Schema of an Extension document: entry and config. */
import { envelope, freeObject, nonEmptyString } from "./common.ts";

export const extensionSchema = envelope({
  kind: "Extension",
  description: "Middleware loaded into each agent process; its entry exports register(api, config).",
  spec: {
    type: "object",
    required: ["entry"],
    additionalProperties: false,
    properties: { entry: nonEmptyString, config: freeObject },
  },
});
