/**
 * The JSON Schema of one goondan.yaml document, all kinds in one (draft-07, `if kind then <schema>`), as
 * `goondan schema` prints it for yaml-language-server and other editors. It is built from the same
 * per-kind schemas the loader validates with.
 */
import { API_VERSION, KINDS } from "./types.ts";
import { KIND_SCHEMAS } from "./schemas/index.ts";
import { DEFINITIONS, type JsonSchema } from "./schemas/common.ts";

export const DOCUMENT_SCHEMA_ID = "https://goondan.ai/schemas/goondan.yaml.json";

export function documentSchema(): JsonSchema {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: DOCUMENT_SCHEMA_ID,
    title: "goondan.yaml document",
    description: `One document of a goondan bundle (apiVersion ${API_VERSION}); documents are separated by ---.`,
    type: "object",
    required: ["apiVersion", "kind", "metadata"],
    properties: {
      apiVersion: { const: API_VERSION },
      kind: { enum: [...KINDS] },
    },
    allOf: KINDS.map((kind) => ({
      if: { properties: { kind: { const: kind } }, required: ["kind"] },
      then: KIND_SCHEMAS[kind],
    })),
    definitions: DEFINITIONS,
  };
}
