/**
 * What the `mcp` extension knows about one server, read from its config after ValueSources were resolved:
 * the transport (stdio `{command, args, env, cwd}` or Streamable HTTP `{url, headers}`), the tool allow-list,
 * the per-call and connect deadlines, and the secret values (env and header values) that must never be
 * logged. The config plane (`goondan validate`) checks the written shape with paths and codes; this reader
 * only narrows types and refuses, with the server's name, what could not have passed validation.
 */
import { isAbsolute, resolve } from "node:path";
import { ConfigError } from "../../../shared/errors.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../../../shared/json.ts";
import type { SandboxNetwork } from "../../../tools/pid-namespace-sandbox.ts";
import { isolationSetting, type IsolationSetting } from "../../../tools/sandbox-pool.ts";

/** Default deadline of one tool call (E_TOOL_TIMEOUT past it). */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Default deadline of starting a server and listing its tools; the agent waits at most this long at start. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export type McpTransportSpec =
  | {
      type: "stdio";
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd: string;
      /** The server's sandbox (absent: the defaults, network none and isolation auto, nothing hidden). */
      sandbox?: McpSandboxSpec;
    }
  | { type: "http"; url: string; headers: Record<string, string> };

/** Network "none" (default) or "host"; isolation "auto" (default), "required", "none"; the state root to hide. */
export interface McpSandboxSpec {
  network: SandboxNetwork;
  isolation: IsolationSetting;
  hide?: string;
}

export interface McpServerSpec {
  /** The config key: the prefix of every tool name (`<server>__<tool>`). */
  name: string;
  transport: McpTransportSpec;
  /** The server's tool names to offer; undefined offers all of them. */
  tools?: string[];
  timeoutMs: number;
  connectTimeoutMs: number;
  /** Values of env and headers (6 characters or more): replaced by `[redacted]` wherever server output is logged. */
  secrets: string[];
}

/**
 * Reads `config.servers` (already resolved); relative stdio `cwd` is read against `bundleDir`, which is also the
 * default. `stateRoot`, when given, is hidden from every stdio server's sandbox.
 */
export function readServerSpecs(
  config: JsonObject,
  options: { bundleDir: string; stateRoot?: string },
): McpServerSpec[] {
  const servers = config.servers;
  if (!isJsonObject(servers))
    throw invalid("servers", "a mapping of server names to {command, …} or {url, …}", servers);
  return Object.entries(servers).map(([name, value]) => readServer(name, value, options));
}

function readServer(name: string, value: JsonValue, options: { bundleDir: string; stateRoot?: string }): McpServerSpec {
  const { bundleDir, stateRoot } = options;
  const at = `servers.${name}`;
  if (!isJsonObject(value)) throw invalid(at, "a mapping with command (stdio) or url (Streamable HTTP)", value);
  const env = stringMap(value.env, `${at}.env`);
  const headers = stringMap(value.headers, `${at}.headers`);
  let transport: McpTransportSpec;
  if (typeof value.command === "string" && value.url === undefined) {
    const cwd = typeof value.cwd === "string" ? value.cwd : ".";
    transport = {
      type: "stdio",
      command: value.command,
      args: stringList(value.args, `${at}.args`) ?? [],
      env,
      cwd: isAbsolute(cwd) ? cwd : resolve(bundleDir, cwd),
      sandbox: {
        network: value.network === "host" ? "host" : "none",
        isolation: isolationSetting(value.isolation),
        ...(stateRoot === undefined ? {} : { hide: stateRoot }),
      },
    };
  } else if (typeof value.url === "string" && value.command === undefined) {
    transport = { type: "http", url: value.url, headers };
  } else {
    const found =
      value.command !== undefined && value.url !== undefined
        ? "both"
        : value.command === undefined && value.url === undefined
          ? "neither"
          : "one of the wrong type";
    throw new ConfigError(
      "E_CONFIG_SCHEMA_INVALID",
      `mcp config ${at}: expected exactly one of command (stdio) and url (Streamable HTTP) as a string, found ${found}`,
    );
  }
  const tools = stringList(value.tools, `${at}.tools`);
  return {
    name,
    transport,
    ...(tools === undefined ? {} : { tools }),
    timeoutMs: positive(value.timeoutMs, `${at}.timeoutMs`) ?? DEFAULT_CALL_TIMEOUT_MS,
    connectTimeoutMs: positive(value.connectTimeoutMs, `${at}.connectTimeoutMs`) ?? DEFAULT_CONNECT_TIMEOUT_MS,
    secrets: [...Object.values(env), ...Object.values(headers)].filter((secret) => secret.length >= 6),
  };
}

/** A resolved env/headers map: every value a string (a ValueSource whose env var is unset resolves to null). */
function stringMap(value: JsonValue | undefined, at: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isJsonObject(value)) throw invalid(at, "a mapping of names to strings or ValueSources", value);
  const map: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== "string") {
      throw new ConfigError(
        "E_CONFIG_ENV_MISSING",
        `mcp config ${at}.${key}: expected a string, found ${item === null ? "null (its ValueSource's env var is not set)" : typeof item}`,
        {
          suggestion: "set the env var its valueFrom names, or write the value as a string",
        },
      );
    }
    map[key] = item;
  }
  return map;
}

function stringList(value: JsonValue | undefined, at: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    throw invalid(at, "a list of strings", value);
  return value as string[];
}

function positive(value: JsonValue | undefined, at: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    throw invalid(at, "a positive integer (milliseconds)", value);
  return value;
}

function invalid(at: string, expected: string, found: unknown): ConfigError {
  // Never the found value itself for maps: it may hold a resolved secret.
  const shown = isJsonObject(found as JsonValue) ? "a mapping" : (JSON.stringify(found) ?? "nothing");
  return new ConfigError("E_CONFIG_SCHEMA_INVALID", `mcp config ${at}: expected ${expected}, found ${shown}`, {
    suggestion: "run `goondan validate` for the exact place in goondan.yaml",
  });
}
