/**
 * Bad bundles, one defect each: every case asserts the exact errors (code and path) it gets, and no
 * others, so that a defect is reported once, where it is, without noise from its neighbours.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { AGENT, MODEL, SWARM, TOOL, baseBundle, docs, header, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

interface BadCase {
  title: string;
  files: Record<string, string>;
  errors: [code: string, path: string][];
  checkModules?: boolean;
}

const tool = (spec: string, name = "echo") => `${header("Tool", name)}spec:\n${spec}`;
const agent = (spec: string, name = "a") => `${header("Agent", name)}spec:\n${spec}`;
const swarm = (spec: string, name = "s") => `${header("Swarm", name)}spec:\n${spec}`;
const model = (spec: string, name = "m") => `${header("Model", name)}spec:\n${spec}`;
const AGENT_HEAD = "  modelConfig: { modelRef: Model/m }\n";
const CONNECTOR = `${header("Connector", "inbox")}spec:\n  entry: ./connectors/inbox.ts\n  events:\n    - name: message\n`;
const connection = (spec: string) =>
  `${header("Connection", "inbox-to-s")}spec:\n  connectorRef: Connector/inbox\n${spec}`;
const withConnector = (extra: string[]) =>
  baseBundle({
    extra: [CONNECTOR, ...extra],
    files: { "connectors/inbox.ts": "export default async function () {}\n" },
  });
const SECOND_AGENT = agent(`${AGENT_HEAD}  prompt: { system: hi }\n`, "b");

const cases: BadCase[] = [
  // The file and its documents
  { title: "an empty file", files: { "goondan.yaml": "" }, errors: [["E_KIND_MISSING", "goondan.yaml"]] },
  {
    title: "a file of comments and separators only",
    files: { "goondan.yaml": "# nothing\n---\n---\n" },
    errors: [["E_KIND_MISSING", "goondan.yaml"]],
  },
  {
    title: "a directory without goondan.yaml",
    files: { "README.md": "no bundle here" },
    errors: [["E_FILE_NOT_FOUND", "goondan.yaml"]],
  },
  {
    title: "a goondan.yaml that is a directory",
    files: { "goondan.yaml/keep": "" },
    errors: [["E_FILE_NOT_FOUND", "goondan.yaml"]],
  },
  {
    title: "a file over 1 MiB",
    files: { "goondan.yaml": `${MODEL}# ${"x".repeat(1024 * 1024)}\n` },
    errors: [["E_CONFIG_FILE_TOO_LARGE", "goondan.yaml"]],
  },
  {
    title: "invalid YAML (an unclosed flow mapping)",
    files: { "goondan.yaml": docs(MODEL, "apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: x\n") },
    errors: [["E_CONFIG_PARSE_ERROR", "goondan.yaml#1"]],
  },
  {
    title: "a duplicate key in a mapping",
    files: {
      "goondan.yaml":
        "apiVersion: goondan.ai/v1\nkind: Model\nkind: Tool\nmetadata: { name: m }\nspec: { provider: openai, model: x }\n",
    },
    errors: [["E_CONFIG_PARSE_ERROR", "goondan.yaml#0"]],
  },
  {
    title: "a scalar document",
    files: { "goondan.yaml": docs(MODEL, "just a string") },
    errors: [["E_CONFIG_DOCUMENT_NOT_OBJECT", "goondan.yaml#1"]],
  },
  {
    title: "a list document",
    files: { "goondan.yaml": docs(MODEL, "- kind: Tool\n- kind: Agent") },
    errors: [["E_CONFIG_DOCUMENT_NOT_OBJECT", "goondan.yaml#1"]],
  },
  {
    title: "a document without kind",
    files: { "goondan.yaml": docs(MODEL, "apiVersion: goondan.ai/v1\nmetadata: { name: x }\nspec: {}") },
    errors: [["E_CONFIG_MISSING_KIND", "goondan.yaml#1"]],
  },
  {
    title: "an unknown kind",
    files: { "goondan.yaml": docs(MODEL, "apiVersion: goondan.ai/v1\nkind: Tools\nmetadata: { name: x }\nspec: {}") },
    errors: [["E_CONFIG_UNKNOWN_KIND", "goondan.yaml#1.kind"]],
  },
  {
    title: "a document without apiVersion",
    files: { "goondan.yaml": "kind: Model\nmetadata: { name: m }\nspec: { provider: openai, model: x }\n" },
    errors: [["E_CONFIG_UNSUPPORTED_API_VERSION", "goondan.yaml#0"]],
  },
  {
    title: "an unknown apiVersion",
    files: {
      "goondan.yaml":
        "apiVersion: agents.example.io/v1alpha1\nkind: Model\nmetadata: { name: m }\nspec: { provider: openai, model: x }\n",
    },
    errors: [["E_CONFIG_UNSUPPORTED_API_VERSION", "goondan.yaml#0.apiVersion"]],
  },
  {
    title: "an unknown top-level field",
    files: baseBundle({ model: `${MODEL}specs: {}\n` }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.specs"]],
  },
  {
    title: "a file of 101 documents",
    files: {
      "goondan.yaml": docs(
        ...Array.from({ length: 101 }, (_, index) => model("  provider: openai\n  model: gpt-5\n", `m${index}`)),
      ),
    },
    errors: [["E_CONFIG_TOO_MANY_DOCUMENTS", "goondan.yaml"]],
  },
  {
    title: "two Package documents in goondan.yaml",
    files: {
      ...baseBundle(),
      "goondan.yaml": docs(
        `${header("Package", "p")}spec: { version: 1.0.0 }\n`,
        MODEL,
        TOOL,
        AGENT,
        SWARM,
        `${header("Package", "q")}spec: { version: 1.0.0 }\n`,
      ),
    },
    errors: [["E_CONFIG_PACKAGE_DOC_DUPLICATED", "goondan.yaml#5.kind"]],
  },
  {
    title: "a Package document outside goondan.yaml",
    files: { ...baseBundle(), "agents.yaml": `${header("Package", "p")}spec: { version: 1.0.0 }\n` },
    errors: [["E_CONFIG_PACKAGE_DOC_POSITION", "agents.yaml#0.kind"]],
  },
  {
    title: "a Package that is not the first document",
    files: baseBundle({ extra: [`${header("Package", "late")}spec: { version: 1.0.0 }\n`] }),
    errors: [["E_CONFIG_PACKAGE_DOC_POSITION", "goondan.yaml#4.kind"]],
  },
  {
    title: "a metadata without name",
    files: baseBundle({
      extra: ["apiVersion: goondan.ai/v1\nkind: Extension\nmetadata: { labels: { a: b } }\nspec: { entry: ./x.ts }"],
    }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#4.metadata.name"]],
  },
  {
    title: "a resource name with spaces and capitals",
    files: baseBundle({ extra: [model("  provider: openai\n  model: gpt-5\n", "My Model")] }),
    errors: [["E_CONFIG_INVALID_NAME", "goondan.yaml#4.metadata.name"]],
  },
  {
    title: "two Models with the same name",
    files: baseBundle({ extra: [MODEL] }),
    errors: [["E_CONFIG_DUPLICATE_NAME", "goondan.yaml#4.metadata.name"]],
  },

  // Model
  {
    title: "a Model without provider",
    files: baseBundle({ model: model("  model: gpt-5\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.spec.provider"]],
  },
  {
    title: "a Model with an unknown provider",
    files: baseBundle({ model: model("  provider: mistral\n  model: large\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.spec.provider"]],
  },
  {
    title: "a Model with an unknown field",
    files: baseBundle({ model: model("  provider: openai\n  model: gpt-5\n  temperature: 0.2\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.spec.temperature"]],
  },
  {
    title: "an openai-compatible Model without endpoint",
    files: baseBundle({ model: model("  provider: openai-compatible\n  model: local\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.spec.endpoint"]],
  },
  {
    title: "a replay Model without a cassette",
    files: baseBundle({ model: model("  provider: replay\n  model: demo\n  options: {}\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.spec.options.cassette"]],
  },
  {
    title: "an endpoint that is not an http URL",
    files: baseBundle({ model: model("  provider: openai\n  model: gpt-5\n  endpoint: ftp://example\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.spec.endpoint"]],
  },
  {
    title: "an apiKey with both value and valueFrom",
    files: baseBundle({
      model: model("  provider: openai\n  model: gpt-5\n  apiKey: { value: k, valueFrom: { env: OPENAI_API_KEY } }\n"),
    }),
    errors: [["E_CONFIG_VALUE_SOURCE_INVALID", "goondan.yaml#0.spec.apiKey"]],
  },
  {
    title: "a secretRef that is not Secret/<name>",
    files: baseBundle({
      model: model(
        "  provider: openai\n  model: gpt-5\n  apiKey: { valueFrom: { secretRef: { ref: openai, key: api_key } } }\n",
      ),
    }),
    errors: [["E_CONFIG_VALUE_SOURCE_INVALID", "goondan.yaml#0.spec.apiKey"]],
  },
  {
    title: "an apiKey written as a bare string",
    files: baseBundle({ model: model("  provider: openai\n  model: gpt-5\n  apiKey: sk-123\n") }),
    errors: [["E_CONFIG_VALUE_SOURCE_INVALID", "goondan.yaml#0.spec.apiKey"]],
  },

  // Tool
  {
    title: "a Tool without entry",
    files: baseBundle({ tool: tool("  exports:\n    - name: say\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#1.spec.entry"]],
  },
  {
    title: "a Tool with no exports",
    files: baseBundle({ tool: tool("  entry: ./tools/echo.ts\n  exports: []\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#1.spec.exports"]],
  },
  {
    title: "an errorMessageLimit below 20",
    files: baseBundle({ tool: `${TOOL}  errorMessageLimit: 5\n` }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#1.spec.errorMessageLimit"]],
  },
  {
    title: "a Tool name containing __",
    files: baseBundle({
      tool: tool("  entry: ./tools/echo.ts\n  exports: [{ name: say }]\n", "my__echo"),
      agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  tools: [Tool/my__echo]\n`),
    }),
    errors: [["E_CONFIG_TOOL_NAME", "goondan.yaml#1.metadata.name"]],
  },
  {
    title: "an export name containing __",
    files: baseBundle({ tool: tool("  entry: ./tools/echo.ts\n  exports: [{ name: say }, { name: say__loud }]\n") }),
    errors: [["E_CONFIG_TOOL_NAME", "goondan.yaml#1.spec.exports[1].name"]],
    checkModules: false,
  },
  {
    title: "an export name with a dot",
    files: baseBundle({ tool: tool("  entry: ./tools/echo.ts\n  exports: [{ name: say }, { name: say.loud }]\n") }),
    errors: [["E_CONFIG_TOOL_NAME", "goondan.yaml#1.spec.exports[1].name"]],
    checkModules: false,
  },
  {
    title: "an LLM tool name over 64 characters",
    files: baseBundle({
      tool: tool(`  entry: ./tools/echo.ts\n  exports: [{ name: say }, { name: ${"x".repeat(60)} }]\n`),
    }),
    errors: [["E_CONFIG_TOOL_NAME", "goondan.yaml#1.spec.exports[1].name"]],
    checkModules: false,
  },
  {
    title: "two exports with the same name",
    files: baseBundle({ tool: tool("  entry: ./tools/echo.ts\n  exports: [{ name: say }, { name: say }]\n") }),
    errors: [["E_CONFIG_DUPLICATE_NAME", "goondan.yaml#1.spec.exports[1].name"]],
  },
  {
    title: "parameters that are not of type object",
    files: baseBundle({
      tool: tool("  entry: ./tools/echo.ts\n  exports: [{ name: say, parameters: { type: string } }]\n"),
    }),
    errors: [["E_CONFIG_PARAMETERS_INVALID", "goondan.yaml#1.spec.exports[0].parameters"]],
  },
  {
    title: "parameters that are not a valid JSON Schema",
    files: baseBundle({
      tool: tool(
        "  entry: ./tools/echo.ts\n  exports: [{ name: say, parameters: { type: object, properties: { text: { type: strng } } } }]\n",
      ),
    }),
    errors: [["E_CONFIG_PARAMETERS_INVALID", "goondan.yaml#1.spec.exports[0].parameters"]],
  },
  {
    title: "an absolute entry path",
    files: baseBundle({ tool: tool("  entry: /etc/passwd\n  exports: [{ name: say }]\n") }),
    errors: [["E_CONFIG_ENTRY_OUTSIDE_BUNDLE", "goondan.yaml#1.spec.entry"]],
  },
  {
    title: "an entry path that escapes the bundle",
    files: baseBundle({ tool: tool("  entry: ../outside/echo.ts\n  exports: [{ name: say }]\n") }),
    errors: [["E_CONFIG_ENTRY_OUTSIDE_BUNDLE", "goondan.yaml#1.spec.entry"]],
  },
  {
    title: "a missing entry file",
    files: baseBundle({ tool: tool("  entry: ./tools/missing.ts\n  exports: [{ name: say }]\n") }),
    errors: [["E_CONFIG_ENTRY_NOT_FOUND", "goondan.yaml#1.spec.entry"]],
  },
  {
    title: "an entry module with a syntax error",
    files: baseBundle({ files: { "tools/echo.ts": "export const handlers = { say: ( => 1 };\n" } }),
    errors: [["E_CONFIG_MODULE_LOAD", "goondan.yaml#1.spec.entry"]],
  },
  {
    title: "an entry module that throws while loading",
    files: baseBundle({
      files: { "tools/echo.ts": "throw new Error('boom at load');\nexport const handlers = {};\n" },
    }),
    errors: [["E_CONFIG_MODULE_LOAD", "goondan.yaml#1.spec.entry"]],
  },
  {
    title: "an entry module without handlers",
    files: baseBundle({ files: { "tools/echo.ts": "export const say = () => 1;\n" } }),
    errors: [["E_CONFIG_HANDLERS_MISSING", "goondan.yaml#1.spec.entry"]],
  },
  {
    title: "an entry module whose handlers is not an object",
    files: baseBundle({ files: { "tools/echo.ts": "export const handlers = 5;\n" } }),
    errors: [["E_CONFIG_HANDLERS_MISSING", "goondan.yaml#1.spec.entry"]],
  },
  {
    title: "an export without a handler",
    files: baseBundle({ files: { "tools/echo.ts": "export const handlers = { shout: () => 1 };\n" } }),
    errors: [["E_CONFIG_HANDLER_MISSING", "goondan.yaml#1.spec.exports[0].name"]],
  },
  {
    title: "a handler that is not a function",
    files: baseBundle({ files: { "tools/echo.ts": "export const handlers = { say: 'hello' };\n" } }),
    errors: [["E_CONFIG_HANDLER_MISSING", "goondan.yaml#1.spec.exports[0].name"]],
  },

  // Agent
  {
    title: "an Agent without modelConfig",
    files: baseBundle({ agent: agent("  prompt: { system: hi }\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#2.spec.modelConfig"]],
  },
  {
    title: "a modelRef to a missing Model",
    files: baseBundle({ agent: agent("  modelConfig: { modelRef: Model/gpt }\n  prompt: { system: hi }\n") }),
    errors: [["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#2.spec.modelConfig.modelRef"]],
  },
  {
    title: "a temperature above 2",
    files: baseBundle({
      agent: agent("  modelConfig: { modelRef: Model/m, params: { temperature: 3 } }\n  prompt: { system: hi }\n"),
    }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#2.spec.modelConfig.params.temperature"]],
  },
  {
    title: "a tools ref to a Model",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  tools: [Tool/echo, Model/m]\n`) }),
    errors: [["E_CONFIG_REF_KIND", "goondan.yaml#2.spec.tools[1]"]],
  },
  {
    title: "a tools ref to a kind that does not exist",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  tools: [{ ref: Secret/echo }]\n`) }),
    errors: [["E_CONFIG_REF_KIND", "goondan.yaml#2.spec.tools[0]"]],
  },
  {
    title: "a ref without a kind",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  tools: [echo]\n`) }),
    errors: [["E_CONFIG_INVALID_REF", "goondan.yaml#2.spec.tools[0]"]],
  },
  {
    title: "a ref object without name",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  tools: [{ ref: { kind: Tool } }]\n`) }),
    errors: [["E_CONFIG_INVALID_REF", "goondan.yaml#2.spec.tools[0]"]],
  },
  {
    title: "a misspelled Tool",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  tools: [Tool/echo, Tool/eco]\n`) }),
    errors: [["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#2.spec.tools[1]"]],
  },
  {
    title: "a built-in ref to a Tool @goondan/base does not have",
    files: baseBundle({
      agent: agent(
        `${AGENT_HEAD}  prompt: { system: hi }\n  tools: [{ ref: { kind: Tool, name: teletype, package: "@goondan/base" } }]\n`,
      ),
    }),
    errors: [["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#2.spec.tools[0]"]],
  },
  {
    title: "a ref into a package that is not available",
    files: baseBundle({
      agent: agent(
        `${AGENT_HEAD}  prompt: { system: hi }\n  tools: [{ ref: { kind: Tool, name: echo, package: "@acme/tools" } }]\n`,
      ),
    }),
    errors: [["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#2.spec.tools[0]"]],
  },
  {
    title: "a Tool listed twice in an Agent",
    files: baseBundle({
      agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  tools: [Tool/echo, { ref: Tool/echo }]\n`),
    }),
    errors: [["E_CONFIG_DUPLICATE_NAME", "goondan.yaml#2.spec.tools[1]"]],
  },
  {
    title: "a missing Extension",
    files: baseBundle({
      agent: agent(
        `${AGENT_HEAD}  prompt: { system: hi }\n  extensions: [{ ref: Extension/memory, config: { size: 3 } }]\n`,
      ),
    }),
    errors: [["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#2.spec.extensions[0]"]],
  },
  {
    title: "both prompt.system and prompt.systemRef",
    files: baseBundle({
      agent: agent(`${AGENT_HEAD}  prompt: { system: hi, systemRef: ./prompts/a.md }\n`),
      files: { "prompts/a.md": "hi" },
    }),
    errors: [["E_CONFIG_PROMPT_CONFLICT", "goondan.yaml#2.spec.prompt"]],
  },
  {
    title: "both prompt and prompts",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  prompts: { system: hello }\n`) }),
    errors: [["E_CONFIG_PROMPT_CONFLICT", "goondan.yaml#2.spec.prompts"]],
  },
  {
    title: "the deprecated spec.system beside prompt.system",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { system: hi }\n  system: hello\n`) }),
    errors: [["E_CONFIG_PROMPT_CONFLICT", "goondan.yaml#2.spec.system"]],
  },
  {
    title: "a systemRef to a missing file",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { systemRef: ./prompts/missing.md }\n`) }),
    errors: [["E_CONFIG_PROMPT_NOT_FOUND", "goondan.yaml#2.spec.prompt.systemRef"]],
  },
  {
    title: "a systemRef outside the bundle",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { systemRef: ../../etc/motd }\n`) }),
    errors: [["E_CONFIG_ENTRY_OUTSIDE_BUNDLE", "goondan.yaml#2.spec.prompt.systemRef"]],
  },
  {
    title: "an unknown prompt field",
    files: baseBundle({ agent: agent(`${AGENT_HEAD}  prompt: { sytem: hi }\n`) }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#2.spec.prompt.sytem"]],
  },

  // Swarm
  {
    title: "a Swarm without agents",
    files: baseBundle({ swarm: swarm("  entryAgent: Agent/a\n  agents: []\n") }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#3.spec.agents"]],
  },
  {
    title: "an entryAgent not listed in agents",
    files: baseBundle({ swarm: swarm("  entryAgent: Agent/b\n  agents: [Agent/a]\n"), extra: [SECOND_AGENT] }),
    errors: [["E_CONFIG_ENTRY_AGENT_NOT_LISTED", "goondan.yaml#3.spec.entryAgent"]],
  },
  {
    title: "a Swarm of a missing agent",
    files: baseBundle({ swarm: swarm("  entryAgent: Agent/zed\n  agents: [{ ref: Agent/zed }]\n") }),
    errors: [
      ["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#3.spec.entryAgent"],
      ["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#3.spec.agents[0]"],
    ],
  },
  {
    title: "an agent listed twice",
    files: baseBundle({
      swarm: swarm("  entryAgent: Agent/a\n  agents: [Agent/a, { ref: { kind: Agent, name: a } }]\n"),
    }),
    errors: [["E_CONFIG_DUPLICATE_NAME", "goondan.yaml#3.spec.agents[1]"]],
  },
  {
    title: "an unknown policy field",
    files: baseBundle({ swarm: `${SWARM}  policy: { maxSteps: 3 }\n` }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#3.spec.policy.maxSteps"]],
  },
  {
    title: "a runtime-event retention age that is not a duration",
    files: baseBundle({ swarm: `${SWARM}  policy: { retention: { runtimeEvents: { maxAge: a week } } }\n` }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#3.spec.policy.retention.runtimeEvents.maxAge"]],
  },
  {
    title: "a maxStepsPerTurn of 0",
    files: baseBundle({ swarm: `${SWARM}  policy: { maxStepsPerTurn: 0 }\n` }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#3.spec.policy.maxStepsPerTurn"]],
  },
  {
    title: "a restart backoff written as text",
    files: baseBundle({ swarm: `${SWARM}  policy: { restart: { initialBackoffMs: soon } }\n` }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#3.spec.policy.restart.initialBackoffMs"]],
  },

  // Extension, Connector, Connection
  {
    title: "an Extension whose entry is missing",
    files: baseBundle({ extra: [`${header("Extension", "memory")}spec: { entry: ./extensions/memory.ts }\n`] }),
    errors: [["E_CONFIG_ENTRY_NOT_FOUND", "goondan.yaml#4.spec.entry"]],
  },
  {
    title: "a Connector without events",
    files: baseBundle({
      extra: [`${header("Connector", "inbox")}spec: { entry: ./c.ts, events: [] }\n`],
      files: { "c.ts": "" },
    }),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#4.spec.events"]],
  },
  {
    title: "a Connector declaring an event twice",
    files: baseBundle({
      extra: [
        `${header("Connector", "inbox")}spec: { entry: ./c.ts, events: [{ name: message }, { name: message }] }\n`,
      ],
      files: { "c.ts": "" },
    }),
    errors: [["E_CONFIG_DUPLICATE_NAME", "goondan.yaml#4.spec.events[1].name"]],
  },
  {
    title: "a Connection to a missing Connector",
    files: baseBundle({ extra: [`${header("Connection", "c")}spec: { connectorRef: Connector/teams }\n`] }),
    errors: [["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#4.spec.connectorRef"]],
  },
  {
    title: "a Connection to a missing Swarm",
    files: withConnector([connection("  swarmRef: Swarm/other\n")]),
    errors: [["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#5.spec.swarmRef"]],
  },
  {
    title: "a Connection secret that is not a ValueSource",
    files: withConnector([connection("  secrets: { TOKEN: abc }\n")]),
    errors: [["E_CONFIG_VALUE_SOURCE_INVALID", "goondan.yaml#5.spec.secrets.TOKEN"]],
  },
  {
    title: "a route with both instanceKey and instanceKeyProperty",
    files: withConnector([
      connection(
        "  ingress:\n    rules:\n      - match: { event: message }\n        route: { instanceKey: k, instanceKeyProperty: chat }\n",
      ),
    ]),
    errors: [["E_CONFIG_ROUTE_CONFLICT", "goondan.yaml#5.spec.ingress.rules[0].route"]],
  },
  {
    title: "an ingress rule that is both a signal and a route",
    files: withConnector([
      connection(
        "  ingress:\n    rules:\n      - match: { event: message }\n        signal: deployed\n        route: { instanceKey: k }\n",
      ),
    ]),
    errors: [["E_CONFIG_SIGNAL_RULE_INVALID", "goondan.yaml#5.spec.ingress.rules[0].signal"]],
  },
  {
    title: "an ingress rule whose signal is not a name",
    files: withConnector([connection("  ingress:\n    rules:\n      - signal: Deploy Finished\n")]),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#5.spec.ingress.rules[0].signal"]],
  },
  {
    title: "a route to an agent outside the Swarm",
    files: withConnector([
      SECOND_AGENT,
      connection("  swarmRef: Swarm/s\n  ingress:\n    rules:\n      - route: { agentRef: Agent/b }\n"),
    ]),
    errors: [["E_CONFIG_ROUTE_AGENT_NOT_IN_SWARM", "goondan.yaml#6.spec.ingress.rules[0].route.agentRef"]],
  },
  {
    title: "a route agentRef to a missing agent",
    files: withConnector([connection("  ingress:\n    rules:\n      - route: { agentRef: Agent/ghost }\n")]),
    errors: [["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#5.spec.ingress.rules[0].route.agentRef"]],
  },
  {
    title: "an ingress rule for an event the Connector never emits",
    files: withConnector([connection("  ingress:\n    rules:\n      - match: { event: mesage }\n")]),
    errors: [["E_CONFIG_UNKNOWN_EVENT", "goondan.yaml#5.spec.ingress.rules[0].match.event"]],
  },
  {
    title: "an unknown verify field",
    files: withConnector([connection("  verify: { slack: { signingSecret: { value: s } } }\n")]),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#5.spec.verify.slack"]],
  },
  {
    title: "a verify signing secret that is not a ValueSource",
    files: withConnector([connection("  verify: { webhook: { signingSecret: s3cret } }\n")]),
    errors: [["E_CONFIG_VALUE_SOURCE_INVALID", "goondan.yaml#5.spec.verify.webhook.signingSecret"]],
  },
  {
    title: "a signing secret in both verify and secrets",
    files: withConnector([
      connection(
        "  secrets: { signingSecret: { value: a } }\n  verify: { webhook: { signingSecret: { value: b } } }\n",
      ),
    ]),
    errors: [["E_CONFIG_VERIFY_CONFLICT", "goondan.yaml#5.spec.verify.webhook.signingSecret"]],
  },
  {
    title: "an unknown ingress field",
    files: withConnector([connection("  ingress:\n    rules:\n      - when: { event: message }\n")]),
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#5.spec.ingress.rules[0].when"]],
  },
  {
    title: "a Package dependency that is neither a name nor {name, version}",
    files: {
      ...baseBundle(),
      "goondan.yaml": docs(
        `${header("Package", "p")}spec:\n  dependencies: [{ version: 1.0.0 }]\n`,
        MODEL,
        TOOL,
        AGENT,
        SWARM,
      ),
    },
    errors: [["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.spec.dependencies[0]"]],
  },
];

describe("loadBundle on bad bundles", () => {
  it("holds at least 40 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  for (const badCase of cases) {
    it(`reports ${badCase.errors.map(([code]) => code).join(", ")} for ${badCase.title}`, async () => {
      const dir = writeBundle(badCase.files);
      const result = await loadBundle(dir, { checkModules: badCase.checkModules ?? true });
      expect(result.valid).toBe(false);
      expect(result.bundle).toBeUndefined();
      expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual(badCase.errors);
      for (const issue of result.errors) {
        expect(issue.severity).toBe("error");
        expect(issue.message.length).toBeGreaterThan(0);
      }
    });
  }
});
