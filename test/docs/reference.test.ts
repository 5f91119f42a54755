import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { REFERENCE_FILE, renderReference } from "../../docs/generate-reference.ts";
import { documentSchema } from "../../src/config/document-schema.ts";

describe("docs/goondan-yaml.md", () => {
  it("is what docs/generate-reference.ts generates from the current schema (run it after a schema change)", () => {
    expect(readFileSync(REFERENCE_FILE, "utf8")).toBe(renderReference());
  });

  it("documents every kind and every spec field of the schema", () => {
    const reference = renderReference();
    const clauses = (
      documentSchema() as {
        allOf: {
          if: { properties: { kind: { const: string } } };
          then: { properties: { spec?: { properties?: Record<string, unknown> } } };
        }[];
      }
    ).allOf;
    for (const clause of clauses) {
      expect(reference).toContain(`## ${clause.if.properties.kind.const}\n`);
      for (const field of Object.keys(clause.then.properties.spec?.properties ?? {}))
        expect(reference).toContain(`| \`spec.${field}\` |`);
    }
  });
});

describe("docs/cli.md", () => {
  it("is what docs/generate-cli.ts generates from the CLI's help (run it after adding a command or flag)", async () => {
    const { CLI_FILE, renderCli } = await import("../../docs/generate-cli.ts");
    expect(readFileSync(CLI_FILE, "utf8")).toBe(await renderCli());
  });
});
