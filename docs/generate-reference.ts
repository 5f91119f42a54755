/**
 * Generates docs/goondan-yaml.md, the goondan.yaml reference, from the JSON Schema that the config plane
 * validates with (`documentSchema()`, the same one `goondan schema` prints) plus the defaults of
 * src/config/defaults.ts. Hand-written prose lives here: kind introductions, notes for fields the schema
 * does not describe, and one example per kind (each example is checked against the schema by the docs test).
 *
 *   bun docs/generate-reference.ts          rewrite docs/goondan-yaml.md
 * test/docs/reference.test.ts fails when the committed file is out of date.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { documentSchema } from "../src/config/document-schema.ts";
import { DEFAULT_ERROR_MESSAGE_LIMIT, defaultPolicy } from "../src/config/defaults.ts";
import type { Kind } from "../src/config/types.ts";

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
  "Swarm.spec.policy.lifecycle.maxProcesses": String(policy.lifecycle.maxProcesses),
  "Tool.spec.errorMessageLimit": String(DEFAULT_ERROR_MESSAGE_LIMIT),
  "Tool.spec.exports[].parameters": "`{type: object, properties: {}}`",
  "Tool.spec.exports[].timeoutMs": "60000",
};

/** Notes for fields whose schema has no description. */
const NOTES: Record<string, string> = {
  "metadata.name": "The resource's name, unique per kind. Tool and export names use lowercase letters, digits, `-` and `_`, never `__`.",
  "metadata.labels": "Free-form string labels.",
  "metadata.annotations": "Free-form string annotations.",
  "Package.spec.version": "The bundle's version.",
  "Package.spec.description": "What the bundle is for.",
  "Package.spec.access": "Publication access, kept for compatibility with public bundles.",
  "Package.spec.dependencies": "Other packages this one needs (name, or {name, version}). `@goondan/base` is always available.",
  "Package.spec.registry": "Registry to publish to, kept for compatibility with public bundles.",
  "Model.spec.provider": "Which AI SDK provider serves the model. `replay` answers from a cassette with no network.",
  "Model.spec.model": "The provider's model id (e.g. `claude-sonnet-4-5`, `gpt-4o-mini`).",
  "Model.spec.apiKey": "The API key. Only the env vars of resources the selected Swarm uses are required at run time.",
  "Model.spec.endpoint": "Base URL of the provider's API; honoured by every provider, required for `openai-compatible`.",
  "Model.spec.options": "Provider options. `replay` reads `options.cassette`: a bundle-relative JSONL file written by `goondan run --record`.",
  "Model.spec.capabilities": "Capability flags, kept for compatibility with public bundles.",
  "Agent.spec.modelConfig.modelRef": "The Model this agent calls.",
  "Agent.spec.modelConfig.params": "Sampling parameters passed to every call.",
  "Agent.spec.modelConfig.params.temperature": "Sampling temperature.",
  "Agent.spec.modelConfig.params.maxTokens": "Maximum output tokens per call.",
  "Agent.spec.modelConfig.params.topP": "Nucleus sampling.",
  "Agent.spec.prompt.system": "The system prompt, inline. goondan puts it in front of every model call.",
  "Agent.spec.prompt.systemRef": "A bundle-relative file holding the system prompt.",
  "Agent.spec.tools": "The tools offered to the model (the step's catalog starts from this list).",
  "Agent.spec.extensions": "Extensions loaded into the agent process, in order.",
  "Agent.spec.requiredTools": "Tool names the agent must call before it ends a turn (enforced by the `required-tools-guard` extension).",
  "Agent.spec.description": "What the agent does; shown to other agents by `agents__catalog`.",
  "Swarm.spec.entryAgent": "The agent that receives `--input`, API events without `agent`, and unrouted connector events. Must be listed in `agents`.",
  "Swarm.spec.agents": "The agents of this swarm.",
  "Swarm.spec.instanceKey": "The default instance key of events sent to the swarm.",
  "Swarm.spec.policy.maxStepsPerTurn": "Steps (model calls) per turn before it ends with `finishReason: max_steps`.",
  "Swarm.spec.policy.maxDelegationDepth": "Longest chain of `agents__request` calls (`DELEGATION_DEPTH_EXCEEDED` beyond).",
  "Swarm.spec.policy.requestTimeoutMs": "Deadline of an inter-agent request (`AGENT_REQUEST_TIMEOUT`).",
  "Swarm.spec.policy.shutdown.gracePeriodSeconds": "How long a child may take to finish its turn on shutdown before it is killed.",
  "Swarm.spec.policy.restart.maxConsecutiveCrashes": "Crashes in a row restarted at once; beyond, the child backs off (`crashLoopBackOff`) and a poison event is answered with `AGENT_CRASHED`.",
  "Swarm.spec.policy.restart.initialBackoffMs": "First backoff delay, doubling on each further crash.",
  "Swarm.spec.policy.restart.maxBackoffMs": "Longest backoff delay.",
  "Swarm.spec.policy.lifecycle.idleSeconds": "An instance idle this long is stopped (its conversation stays on disk).",
  "Swarm.spec.policy.lifecycle.maxProcesses": "Most agent processes alive at once; the least recently used idle one makes room.",
  "Swarm.spec.policy.lifecycle.ttlSeconds": "Accepted for compatibility with public bundles.",
  "Swarm.spec.policy.lifecycle.gcGraceSeconds": "Accepted for compatibility with public bundles.",
  "Tool.spec.entry": "Bundle-relative module exporting `handlers: Record<exportName, ToolHandler>`.",
  "Tool.spec.errorMessageLimit": "Error messages the model reads are cut to this length, ending in `... (truncated)`.",
  "Tool.spec.exports": "The functions the model sees, as `{tool}__{export}`.",
  "Tool.spec.exports[].name": "Export name, unique in the tool.",
  "Tool.spec.exports[].description": "What the function does, for the model.",
  "Tool.spec.exports[].parameters": "JSON Schema of the arguments, validated before the handler runs.",
  "Tool.spec.exports[].timeoutMs": "The call fails with `E_TOOL_TIMEOUT` and `ctx.signal` aborts after this long.",
  "Tool.spec.config": "Tool settings, passed to handlers as `ctx.config`.",
  "Extension.spec.entry": "Bundle-relative module exporting `register(api, config)`.",
  "Extension.spec.config": "Default config; an Agent's `extensions[].config` is merged over it.",
  "Connector.spec.entry": "Bundle-relative module run in its own process.",
  "Connector.spec.events": "The events the connector emits.",
  "Connector.spec.events[].name": "Event name, matched by Connection ingress rules.",
  "Connector.spec.events[].description": "What the event means.",
  "Connector.spec.events[].properties": "Properties the event carries, each `{type}`.",
  "Connection.spec.connectorRef": "The Connector to run.",
  "Connection.spec.swarmRef": "The Swarm that receives its events (default: the swarm being run).",
  "Connection.spec.config": "Connector settings; values may be ValueSources.",
  "Connection.spec.secrets": "Secrets passed to the connector, as ValueSources; never logged.",
  "Connection.spec.ingress.rules": "Routing rules, first match wins.",
  "Connection.spec.ingress.rules[].match.event": "Event name to match.",
  "Connection.spec.ingress.rules[].match.properties": "Property values to match.",
  "Connection.spec.ingress.rules[].route.agentRef": "Target agent (default: the entry agent).",
  "Connection.spec.ingress.rules[].route.instanceKey": "Fixed instance key.",
  "Connection.spec.ingress.rules[].route.instanceKeyProperty": "Take the instance key from this event property (e.g. a chat id).",
  "Connection.spec.ingress.rules[].route.instanceKeyPrefix": "Prefix for a key taken from a property.",
};

const EXAMPLES: Record<Kind, string> = {
  Package: `apiVersion: goondan.ai/v1
kind: Package
metadata:
  name: my-swarm
spec:
  version: 0.1.0
  description: Agents that keep my notes`,
  Model: `apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: claude
spec:
  provider: anthropic
  model: claude-sonnet-4-5
  apiKey:
    valueFrom:
      env: ANTHROPIC_API_KEY
---
apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: local
spec:
  provider: openai-compatible
  model: llama3.1
  endpoint: http://127.0.0.1:11434/v1
---
apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: replay
spec:
  provider: replay
  model: demo
  options:
    cassette: ./cassettes/demo.jsonl`,
  Agent: `apiVersion: goondan.ai/v1
kind: Agent
metadata:
  name: worker
spec:
  description: Does file work
  modelConfig:
    modelRef: Model/claude
    params: { temperature: 0.2, maxTokens: 2048 }
  prompt:
    systemRef: ./prompts/worker.md
  tools:
    - ref: { kind: Tool, name: file-system, package: "@goondan/base" }
    - Tool/notes
  extensions:
    - ref: { kind: Extension, name: message-window, package: "@goondan/base" }
      config: { maxMessages: 20 }`,
  Swarm: `apiVersion: goondan.ai/v1
kind: Swarm
metadata:
  name: team
spec:
  entryAgent: Agent/coordinator
  agents: [Agent/coordinator, Agent/worker]
  policy:
    maxStepsPerTurn: 16
    requestTimeoutMs: 120000
    shutdown: { gracePeriodSeconds: 10 }
    restart: { maxConsecutiveCrashes: 3 }
    lifecycle: { idleSeconds: 300, maxProcesses: 20 }`,
  Tool: `apiVersion: goondan.ai/v1
kind: Tool
metadata:
  name: notes
spec:
  entry: ./tools/notes.ts
  errorMessageLimit: 500
  exports:
    - name: append
      description: Add one line to the notes
      timeoutMs: 5000
      parameters:
        type: object
        properties: { text: { type: string } }
        required: [text]
        additionalProperties: false`,
  Extension: `apiVersion: goondan.ai/v1
kind: Extension
metadata:
  name: audit
spec:
  entry: ./extensions/audit.ts
  config: { level: info }`,
  Connector: `apiVersion: goondan.ai/v1
kind: Connector
metadata:
  name: chat
spec:
  entry: ./connectors/chat.ts
  events:
    - name: message
      properties: { chatId: { type: string }, text: { type: string } }`,
  Connection: `apiVersion: goondan.ai/v1
kind: Connection
metadata:
  name: chat-to-team
spec:
  connectorRef: Connector/chat
  swarmRef: Swarm/team
  secrets:
    token: { valueFrom: { env: CHAT_TOKEN } }
  ingress:
    rules:
      - match: { event: message }
        route:
          agentRef: Agent/coordinator
          instanceKeyProperty: chatId
          instanceKeyPrefix: "chat-"`,
};

const DEFINITION_NAMES: Record<string, string> = {
  objectRef: "[ObjectRef](#objectref)",
  refItem: "[ObjectRef](#objectref) or `{ref: ObjectRef}`",
  extensionItem: "[ObjectRef](#objectref) or `{ref: ObjectRef, config?}`",
  valueSource: "[ValueSource](#valuesource)",
  metadata: "metadata",
};

function typeOf(schema: Schema): string {
  if (typeof schema.$ref === "string") return DEFINITION_NAMES[schema.$ref.replace("#/definitions/", "")] ?? schema.$ref;
  if ("const" in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((value) => `\`${String(value)}\``).join(", ")}`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(typeOf).join(" or ");
  if (schema.type === "array") return `list of ${schema.items ? typeOf(schema.items as Schema) : "any"}`;
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  if (schema.type === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object" && !schema.properties) {
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
  const description = limits === "" ? text : text === "" ? `${limits[0]?.toUpperCase()}${limits.slice(1)}.` : `${text} (${limits})`;
  rows.push({ path, type: typeOf(schema), required: options.required, defaultValue: DEFAULTS[key] ?? "", description });
  const properties = (schema.properties ?? (schema.type === "array" ? (schema.items as Schema | undefined)?.properties : undefined)) as Record<string, Schema> | undefined;
  if (!properties) return;
  const base = schema.type === "array" ? `${path}[]` : path;
  const requiredNames = new Set((schema.type === "array" ? ((schema.items as Schema).required as string[] | undefined) : (schema.required as string[] | undefined)) ?? []);
  for (const [name, child] of Object.entries(properties)) {
    walk({ kind, schema: child, path: `${base}.${name}`, required: requiredNames.has(name), rows });
  }
}

const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function conditionalNotes(spec: Schema): string[] {
  const notes: string[] = [];
  for (const clause of (spec.allOf as Schema[] | undefined) ?? []) {
    const provider = ((clause.if as Schema | undefined)?.properties as Record<string, Schema> | undefined)?.provider?.const;
    const then = clause.then as Schema | undefined;
    if (provider === undefined || then === undefined) continue;
    const needs = [...((then.required as string[] | undefined) ?? [])];
    const options = (then.properties as Record<string, Schema> | undefined)?.options?.required as string[] | undefined;
    notes.push(`With \`provider: ${String(provider)}\`, \`${needs.join("`, `")}\` ${needs.length > 1 ? "are" : "is"} required${options ? ` (with \`options.${options.join("`, `options.")}\`)` : ""}.`);
  }
  return notes;
}

export function renderReference(): string {
  const document = documentSchema() as Schema;
  const definitions = document.definitions as Record<string, Schema>;
  const out: string[] = [];
  out.push("<!-- Generated by `bun docs/generate-reference.ts` from the config plane's JSON Schema (`goondan schema`). Do not edit by hand. -->");
  out.push("# goondan.yaml reference", "");
  out.push("A bundle is a directory holding `goondan.yaml`: YAML documents separated by `---`, each one resource with");
  out.push("`apiVersion: goondan.ai/v1`, a `kind`, `metadata` and a `spec`. Unknown kinds, unknown fields and unknown");
  out.push("apiVersions are errors. `goondan validate` reports every issue with its path (`goondan.yaml#<doc>.spec.<field>`),");
  out.push("and `goondan schema` prints this schema for editors:", "");
  out.push("```text", "# yaml-language-server: $schema=<path to the output of `goondan schema`>", "```", "");
  const kinds = (document.allOf as Schema[]).map((clause) => ({
    kind: (((clause.if as Schema).properties as Record<string, Schema>).kind as Schema).const as Kind,
    schema: clause.then as Schema,
  }));
  out.push(`Kinds: ${kinds.map(({ kind }) => `[${kind}](#${kind.toLowerCase()})`).join(", ")}.`, "");
  out.push("## Common fields", "");
  out.push("| Field | Type | Required | Description |", "| --- | --- | --- | --- |");
  out.push("| `apiVersion` | `\"goondan.ai/v1\"` | yes | |");
  out.push("| `kind` | one of the kinds above | yes | |");
  const metadataRows: Row[] = [];
  for (const [name, child] of Object.entries((definitions.metadata as Schema).properties as Record<string, Schema>)) {
    walk({ kind: "", schema: child, path: `metadata.${name}`, required: (((definitions.metadata as Schema).required as string[]) ?? []).includes(name), rows: metadataRows });
  }
  for (const row of metadataRows) out.push(`| \`${row.path}\` | ${cell(row.type)} | ${row.required ? "yes" : ""} | ${cell(NOTES[row.path] ?? row.description)} |`);
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
    for (const row of rows) out.push(`| \`${row.path}\` | ${cell(row.type)} | ${row.required ? "yes" : ""} | ${cell(row.defaultValue)} | ${cell(row.description)} |`);
    out.push("");
    for (const note of conditionalNotes(spec)) out.push(note, "");
    out.push("```yaml resource", EXAMPLES[kind], "```", "");
  }
  out.push("## ObjectRef", "");
  out.push(`${String((definitions.objectRef as Schema).description)} A list item may wrap it as \`{ref: …}\`.`);
  out.push("`package: \"@goondan/base\"`, or a bare name that the bundle does not define, refers to a built-in Tool or Extension.", "");
  out.push("```text", "modelRef: Model/claude", "modelRef: { kind: Model, name: claude }", "tools:", "  - Tool/notes", "  - ref: { kind: Tool, name: bash, package: \"@goondan/base\" }", "```", "");
  out.push("## ValueSource", "");
  out.push(`${String((definitions.valueSource as Schema).description)} A \`secretRef\` reads the env var`);
  out.push("`GOONDAN_SECRET_<NAME>_<KEY>` (upper-cased, other characters as `_`): `{ref: Secret/slack, key: token}` reads");
  out.push("`GOONDAN_SECRET_SLACK_TOKEN`. Values never appear in logs, events, errors or model context.", "");
  out.push("```text", "apiKey: { value: sk-literal-not-recommended }", "apiKey: { valueFrom: { env: ANTHROPIC_API_KEY } }", "apiKey: { valueFrom: { secretRef: { ref: Secret/anthropic, key: api_key } } }", "```", "");
  return `${out.join("\n")}`;
}

if (import.meta.main) {
  writeFileSync(REFERENCE_FILE, renderReference());
  process.stdout.write(`wrote ${REFERENCE_FILE}\n`);
}
