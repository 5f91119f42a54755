/**
 * The editor schema printed by `goondan schema`: a draft-07 schema that ajv compiles, accepting every
 * document of the good fixtures (and of the built-in package) and rejecting bad ones by kind.
 */
import { describe, expect, it } from "bun:test";
import Ajv from "ajv";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { documentSchema } from "../../src/config/document-schema.ts";
import { KINDS } from "../../src/config/types.ts";

const validate = new Ajv({ strict: false, allErrors: true }).compile(documentSchema());

async function documentsOf(file: string): Promise<unknown[]> {
  return parseAllDocuments((await Bun.file(file).text()) as string).flatMap((document) => {
    if (!("toJS" in document)) return [];
    return [document.toJS()];
  });
}

describe("documentSchema", () => {
  it("is a draft-07 schema with one if/then branch per kind", () => {
    const schema = documentSchema();
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect((schema.allOf as unknown[]).length).toBe(KINDS.length);
    expect((schema.properties as { kind: { enum: string[] } }).kind.enum).toEqual([...KINDS]);
  });

  for (const file of [
    "fixtures/bundles/every-kind/goondan.yaml",
    "fixtures/bundles/public-format/goondan.yaml",
    "../src/base/goondan.yaml",
  ]) {
    it(`accepts every document of ${file}`, async () => {
      const documents = await documentsOf(join(import.meta.dir, "..", file));
      expect(documents.length).toBeGreaterThan(3);
      for (const document of documents) {
        const ok = validate(document);
        expect(validate.errors ?? []).toEqual([]);
        expect(ok).toBe(true);
      }
    });
  }

  it("rejects a Tool without exports, an unknown kind and a wrong apiVersion", () => {
    expect(
      validate({ apiVersion: "goondan.ai/v1", kind: "Tool", metadata: { name: "t" }, spec: { entry: "./t.ts" } }),
    ).toBe(false);
    expect(validate({ apiVersion: "goondan.ai/v1", kind: "Secret", metadata: { name: "t" }, spec: {} })).toBe(false);
    expect(
      validate({ apiVersion: "v1", kind: "Model", metadata: { name: "m" }, spec: { provider: "openai", model: "x" } }),
    ).toBe(false);
  });

  it("applies the kind's own fields: a Model field is not accepted on an Agent", () => {
    expect(
      validate({
        apiVersion: "goondan.ai/v1",
        kind: "Agent",
        metadata: { name: "a" },
        spec: { modelConfig: { modelRef: "Model/m" }, provider: "openai" },
      }),
    ).toBe(false);
    expect(
      validate({
        apiVersion: "goondan.ai/v1",
        kind: "Agent",
        metadata: { name: "a" },
        spec: { modelConfig: { modelRef: "Model/m" } },
      }),
    ).toBe(true);
  });
});
