/**
 * The JSON Schema of the built-in `mcp` extension's config (an Agent's `extensions[]` item `config`): `servers`
 * by name, each stdio `{command, args?, env?, cwd?}` or Streamable HTTP `{url, headers?}`, with `tools?`,
 * `timeoutMs?`, `connectTimeoutMs?`, and for stdio the sandbox settings `network?` (none | host) and `isolation?`
 * (auto | required | none). Env and header values are strings or ValueSources. Which transport
 * fields go together, and the server names, are checked in check-mcp-config.ts with clearer messages.
 */
import { nonEmptyString, positiveInteger, ref, type JsonSchema } from "./common.ts";

/** The built-in Extension this schema belongs to. */
export const MCP_EXTENSION_NAME = "mcp";

const stringOrValueSource: JsonSchema = {
  title: 'a string or a ValueSource ({value}, {valueFrom: {env}} or {valueFrom: {secretRef: {ref: "Secret/x", key}}})',
  anyOf: [{ type: "string" }, ref("valueSource")],
};

const server: JsonSchema = {
  type: "object",
  description: "One MCP server: stdio (command) or Streamable HTTP (url).",
  additionalProperties: false,
  properties: {
    command: { ...nonEmptyString, description: "stdio: the program to run (found on PATH), e.g. npx." },
    args: { type: "array", items: { type: "string" }, description: "stdio: its arguments." },
    env: {
      type: "object",
      additionalProperties: stringOrValueSource,
      description:
        "stdio: extra environment variables (PATH, HOME and the like are passed; the agent's keys never are).",
    },
    cwd: {
      ...nonEmptyString,
      description: "stdio: working directory, relative to the bundle (default the bundle directory).",
    },
    url: {
      type: "string",
      pattern: "^https?://",
      description: "Streamable HTTP: the server's endpoint, e.g. http://127.0.0.1:3001/mcp.",
    },
    headers: {
      type: "object",
      additionalProperties: stringOrValueSource,
      description: "Streamable HTTP: request headers, e.g. Authorization.",
    },
    tools: { type: "array", items: nonEmptyString, description: "Only these of the server's tools (default all)." },
    network: {
      enum: ["none", "host"],
      description:
        "stdio: none (default) runs the server in a network namespace of its own (no daemon API, no other host); host gives it the machine's network.",
    },
    isolation: {
      enum: ["auto", "required", "none"],
      description:
        "stdio: auto (default) runs the server in its own sandbox (PID and network namespaces, no capabilities, state root hidden) where the machine allows it, else as is with a warning; required refuses to start it otherwise; none never isolates it.",
    },
    timeoutMs: { ...positiveInteger, description: "Deadline of one tool call (default 60000)." },
    connectTimeoutMs: {
      ...positiveInteger,
      description: "Deadline of starting the server and listing its tools (default 10000).",
    },
  },
};

export const mcpConfigSchema: JsonSchema = {
  type: "object",
  required: ["servers"],
  additionalProperties: false,
  properties: {
    servers: {
      type: "object",
      minProperties: 1,
      additionalProperties: server,
      description: "The MCP servers, by name; the name prefixes each tool (<server>__<tool>).",
    },
  },
};
