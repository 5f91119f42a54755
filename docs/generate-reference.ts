/**
 * Generates docs/goondan-yaml.md, the goondan.yaml reference, from the JSON Schema that the config plane
 * validates with (`documentSchema()`, the same one `goondan schema` prints) plus the defaults of
 * src/config/defaults.ts. Hand-written prose lives in reference-notes.ts: notes for fields the schema does
 * not describe, and one example per kind (each example is checked against the schema by the docs test).
 *
 *   bun docs/generate-reference.ts          rewrite docs/goondan-yaml.md
 * test/docs/reference.test.ts fails when the committed file is out of date.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { documentSchema } from "../src/config/document-schema.ts";
import { DEFAULT_ERROR_MESSAGE_LIMIT, defaultPolicy } from "../src/config/defaults.ts";
import type { Kind } from "../src/config/types.ts";
import { EXAMPLES, NOTES } from "./reference-notes.ts";

type Schema = Record<string, unknown>;

export const REFERENCE_FILE = join(import.meta.dir, "goondan-yaml.md");

const policy = defaultPolicy();

/** Defaults by `Kind.path` (documented where the loader applies them). */
const DEFAULTS: Record<string, string> = {
  "Swarm.spec.instanceKey": "the Swarm's `metadata.name`",
  "Swarm.spec.policy.maxStepsPerTurn": String(policy.maxStepsPerTurn),
  "Swarm.spec.policy.maxDelegationDepth": String(policy.maxDelegationDepth),
  "Swarm.spec.policy.requestTimeoutMs": String(policy.requestTimeoutMs),
  "Swarm.spec.policy.shutdown.gracePeriodSeconds": String(policy.shutdown.gracePeriodSeconds),
  "Swarm.spec.policy.restart.maxConsecutiveCrashes": String(policy.restart.maxConsecutiveCrashes),
  "Swarm.spec.policy.restart.initialBackoffMs": String(policy.restart.initialBackoffMs),
  "Swarm.spec.policy.restart.maxBackoffMs": String(policy.restart.maxBackoffMs),
  "Swarm.spec.policy.lifecycle.idleSeconds": String(policy.lifecycle.idleSeconds),
  "Swarm.spec.policy.lifecycle.maxInstances": String(policy.lifecycle.maxInstances),
  "Swarm.spec.policy.lifecycle.heartbeatTimeoutSeconds": String(policy.lifecycle.heartbeatTimeoutSeconds),
  "Tool.spec.errorMessageLimit": String(DEFAULT_ERROR_MESSAGE_LIMIT),
  "Tool.spec.exports[].parameters": "`{type: object, properties: {}}`",
  "Tool.spec.exports[].timeoutMs": "60000",
  "Tool.spec.exports[].idempotent": "false",
};

const DEFINITION_NAMES: Record<string, string> = {
  objectRef: "[ObjectRef](#objectref)",
  refItem: "[ObjectRef](#objectref) or `{ref: ObjectRef}`",
  extensionItem: "[ObjectRef](#objectref) or `{ref: ObjectRef, config?}`",
  valueSource: "[ValueSource](#valuesource)",
  metadata: "metadata",
};

function typeOf(schema: Schema): string {
  if (typeof schema.$ref === "string")
    return DEFINITION_NAMES[schema.$ref.replace("#/definitions/", "")] ?? schema.$ref;
  if ("const" in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((value) => `\`${String(value)}\``).join(", ")}`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(typeOf).join(" or ");
  if (schema.type === "array") return `list of ${schema.items ? typeOf(schema.items as Schema) : "any"}`;
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  if (
    schema.type === "object" &&
    schema.additionalProperties &&
    typeof schema.additionalProperties === "object" &&
    !schema.properties
  ) {
    return `map of ${typeOf(schema.additionalProperties as Schema)}`;
  }
  if (schema.type === undefined && schema.if !== undefined) return "any (ValueSource when it has `valueFrom`)";
  return typeof schema.type === "string" ? schema.type : "any";
}

function constraints(schema: Schema): string {
  const parts: string[] = [];
  if (typeof schema.minimum === "number") parts.push(`≥ ${schema.minimum}`);
  if (typeof schema.maximum === "number") parts.push(`≤ ${schema.maximum}`);
  if (typeof schema.minLength === "number" && schema.minLength > 0) parts.push("non-empty");
  if (typeof schema.minItems === "number") parts.push(`at least ${schema.minItems}`);
  if (typeof schema.pattern === "string") parts.push(`matches \`${schema.pattern}\``);
  return parts.join(", ");
}

interface Row {
  path: string;
  type: string;
  required: boolean;
  defaultValue: string;
  description: string;
}

function walk(options: { kind: string; schema: Schema; path: string; required: boolean; rows: Row[] }): void {
  const { kind, schema, path, rows } = options;
  const key = `${kind}.${path}`;
  const text = NOTES[key] ?? NOTES[path] ?? (typeof schema.description === "string" ? schema.description : "");
  const limits = constraints(schema);
  const description =
    limits === "" ? text : text === "" ? `${limits[0]?.toUpperCase()}${limits.slice(1)}.` : `${text} (${limits})`;
  rows.push({ path, type: typeOf(schema), required: options.required, defaultValue: DEFAULTS[key] ?? "", description });
  const properties = (schema.properties ??
    (schema.type === "array" ? (schema.items as Schema | undefined)?.properties : undefined)) as
    | Record<string, Schema>
    | undefined;
  if (!properties) return;
  const base = schema.type === "array" ? `${path}[]` : path;
  const requiredNames = new Set(
    (schema.type === "array"
      ? ((schema.items as Schema).required as string[] | undefined)
      : (schema.required as string[] | undefined)) ?? [],
  );
  for (const [name, child] of Object.entries(properties)) {
    walk({ kind, schema: child, path: `${base}.${name}`, required: requiredNames.has(name), rows });
  }
}

const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function conditionalNotes(spec: Schema): string[] {
  const notes: string[] = [];
  for (const clause of (spec.allOf as Schema[] | undefined) ?? []) {
    const provider = ((clause.if as Schema | undefined)?.properties as Record<string, Schema> | undefined)?.provider
      ?.const;
    const then = clause.then as Schema | undefined;
    if (provider === undefined || then === undefined) continue;
    const needs = [...((then.required as string[] | undefined) ?? [])];
    const options = (then.properties as Record<string, Schema> | undefined)?.options?.required as string[] | undefined;
    notes.push(
      `With \`provider: ${String(provider)}\`, \`${needs.join("`, `")}\` ${needs.length > 1 ? "are" : "is"} required${options ? ` (with \`options.${options.join("`, `options.")}\`)` : ""}.`,
    );
  }
  return notes;
}

export function renderReference(): string {
  const document = documentSchema() as Schema;
  const definitions = document.definitions as Record<string, Schema>;
  const out: string[] = [];
  out.push(
    "<!-- Generated by `bun docs/generate-reference.ts` from the config plane's JSON Schema (`goondan schema`). Do not edit by hand. -->",
  );
  out.push("# goondan.yaml reference", "");
  out.push("A bundle is a directory holding `goondan.yaml`: YAML documents separated by `---`, each one resource with");
  out.push(
    "`apiVersion: goondan.ai/v1`, a `kind`, `metadata` and a `spec`. Resources may also be split across files named",
  );
  out.push(
    "`model(s)`, `agent(s)`, `tool(s)`, `extension(s)`, `connector(s)`, `connection(s)`, `swarm(s)` or `resources`",
  );
  out.push(
    "(`.yaml` or `.yml`) anywhere under the bundle directory, as the public Goondan bundle spec has it; a directory",
  );
  out.push(
    "with its own `goondan.yaml` is another bundle and is never merged in, and `node_modules`, `dist` and hidden",
  );
  out.push(
    "directories are skipped. Entry and prompt paths are relative to the bundle directory in every file. Unknown",
  );
  out.push(
    "kinds, unknown fields and unknown apiVersions are errors. `goondan validate` reports every issue with its file,",
  );
  out.push(
    "line and column and its path in the document, and says which name was meant when a field, kind, value or ref",
  );
  out.push("looks like a typo of a known one (the codes are in [error codes](error-codes.md)):", "");
  out.push(
    "```text",
    'goondan.yaml:26:3: #2.spec.tool: E_CONFIG_SCHEMA_INVALID expected one of the fields modelConfig, prompt, prompts, tools, extensions, requiredTools, description, found unknown field "tool"; did you mean "tools"?',
    "```",
    "",
  );
  out.push(
    "`goondan schema` prints this schema for editors; `goondan init` writes it next to the new `goondan.yaml` as",
  );
  out.push("`goondan.schema.json` and heads the file with the line that points yaml-language-server at it:", "");
  out.push("```text", "# yaml-language-server: $schema=./goondan.schema.json", "```", "");
  const kinds = (document.allOf as Schema[]).map((clause) => ({
    kind: (((clause.if as Schema).properties as Record<string, Schema>).kind as Schema).const as Kind,
    schema: clause.then as Schema,
  }));
  out.push(`Kinds: ${kinds.map(({ kind }) => `[${kind}](#${kind.toLowerCase()})`).join(", ")}.`, "");
  out.push("## Common fields", "");
  out.push("| Field | Type | Required | Description |", "| --- | --- | --- | --- |");
  out.push('| `apiVersion` | `"goondan.ai/v1"` | yes | |');
  out.push("| `kind` | one of the kinds above | yes | |");
  const metadataRows: Row[] = [];
  for (const [name, child] of Object.entries((definitions.metadata as Schema).properties as Record<string, Schema>)) {
    walk({
      kind: "",
      schema: child,
      path: `metadata.${name}`,
      required: (((definitions.metadata as Schema).required as string[]) ?? []).includes(name),
      rows: metadataRows,
    });
  }
  for (const row of metadataRows)
    out.push(
      `| \`${row.path}\` | ${cell(row.type)} | ${row.required ? "yes" : ""} | ${cell(NOTES[row.path] ?? row.description)} |`,
    );
  out.push("");
  for (const { kind, schema } of kinds) {
    const spec = ((schema.properties as Record<string, Schema>).spec ?? {}) as Schema;
    out.push(`## ${kind}`, "");
    if (typeof schema.description === "string") out.push(schema.description, "");
    const rows: Row[] = [];
    const required = new Set((spec.required as string[] | undefined) ?? []);
    for (const [name, child] of Object.entries((spec.properties as Record<string, Schema>) ?? {})) {
      walk({ kind, schema: child, path: `spec.${name}`, required: required.has(name), rows });
    }
    out.push("| Field | Type | Required | Default | Description |", "| --- | --- | --- | --- | --- |");
    for (const row of rows)
      out.push(
        `| \`${row.path}\` | ${cell(row.type)} | ${row.required ? "yes" : ""} | ${cell(row.defaultValue)} | ${cell(row.description)} |`,
      );
    out.push("");
    for (const note of conditionalNotes(spec)) out.push(note, "");
    out.push("```yaml resource", EXAMPLES[kind], "```", "");
  }
  out.push("## ObjectRef", "");
  out.push(`${String((definitions.objectRef as Schema).description)} A list item may wrap it as \`{ref: …}\`.`);
  out.push(
    '`package: "@goondan/base"`, or a bare name that the bundle does not define, refers to a built-in Tool or Extension.',
    "",
  );
  out.push(
    "```text",
    "modelRef: Model/claude",
    "modelRef: { kind: Model, name: claude }",
    "tools:",
    "  - Tool/notes",
    '  - ref: { kind: Tool, name: bash, package: "@goondan/base" }',
    "```",
    "",
  );
  out.push("## ValueSource", "");
  out.push(`${String((definitions.valueSource as Schema).description)} A \`secretRef\` reads the env var`);
  out.push(
    "`GOONDAN_SECRET_<NAME>_<KEY>` (upper-cased, other characters as `_`): `{ref: Secret/slack, key: token}` reads",
  );
  out.push("`GOONDAN_SECRET_SLACK_TOKEN`. Values never appear in logs, events, errors or model context.", "");
  out.push(
    "```text",
    "apiKey: { value: sk-literal-not-recommended }",
    "apiKey: { valueFrom: { env: ANTHROPIC_API_KEY } }",
    "apiKey: { valueFrom: { secretRef: { ref: Secret/anthropic, key: api_key } } }",
    "```",
    "",
  );
  return `${out.join("\n")}`;
}

if (import.meta.main) {
  writeFileSync(REFERENCE_FILE, renderReference());
  process.stdout.write(`wrote ${REFERENCE_FILE}\n`);
}
