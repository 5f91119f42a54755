/**
 * goondan's own config schemas (each kind's, and the built-in extensions' config schemas that `goondan validate`
 * checks) are valid JSON Schema: the validator compiles them without checking them against the meta-schema, to
 * start faster, so this test does that check for it.
 */
import { describe, expect, it } from "bun:test";
import Ajv from "ajv";
import { KIND_SCHEMAS } from "../../src/config/schemas/index.ts";
import { withDefinitions } from "../../src/config/schemas/common.ts";
import { mcpConfigSchema } from "../../src/config/schemas/mcp-config.ts";
import { toolApprovalConfigSchema } from "../../src/config/schemas/tool-approval-config.ts";
import { KINDS } from "../../src/config/types.ts";

const metaChecked = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });

describe("goondan's own config schemas", () => {
  const schemas = [
    ...KINDS.map((kind) => [`the ${kind} kind`, KIND_SCHEMAS[kind]] as const),
    ["the mcp extension's config", mcpConfigSchema] as const,
    ["the tool-approval extension's config", toolApprovalConfigSchema] as const,
  ];

  it.each(schemas)("%s is valid against JSON Schema's meta-schema", (_name, schema) => {
    const valid = metaChecked.validateSchema(withDefinitions(schema));
    expect(metaChecked.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("would catch a misspelt type", () => {
    expect(metaChecked.validateSchema({ type: "object", properties: { name: { type: "strnig" } } })).toBe(false);
  });
});
