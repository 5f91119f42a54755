/**
 * The built-in `mcp` extension's config, checked where an Agent uses it (`spec.extensions[i].config`, as
 * written): its shape against the schema, exactly one transport per server with only that transport's fields,
 * and server names the model can take as the first half of `<server>__<tool>`. A bundle's own Extension named
 * `mcp` is its own business and is not checked here.
 */
import { isJsonObject, type JsonObject } from "../shared/json.ts";
import { toolNameProblem, suggestName } from "./check-names.ts";
import type { IssueList, PathSegment } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { validateValue } from "./schema-validator.ts";
import { MCP_EXTENSION_NAME, mcpConfigSchema } from "./schemas/mcp-config.ts";
import { BUILTIN_PACKAGE } from "./types.ts";

const STDIO_FIELDS = ["args", "env", "cwd", "network", "isolation"];
const HTTP_FIELDS = ["headers"];

/** Where Agents use the built-in `mcp` extension: the agent, the item's index and its config as written. */
export function mcpUses(
  resources: readonly LoadedResource[],
): { loaded: LoadedResource; index: number; config: unknown }[] {
  return builtinExtensionUses(resources, MCP_EXTENSION_NAME);
}

/** Where Agents use the built-in extension `name` (of @goondan/base): the agent, the item's index and its config as written. */
export function builtinExtensionUses(
  resources: readonly LoadedResource[],
  name: string,
): { loaded: LoadedResource; index: number; config: unknown }[] {
  const uses: { loaded: LoadedResource; index: number; config: unknown }[] = [];
  for (const loaded of resources) {
    if (loaded.resource.kind !== "Agent") continue;
    const written =
      isJsonObject(loaded.raw.spec) && Array.isArray(loaded.raw.spec.extensions) ? loaded.raw.spec.extensions : [];
    for (const use of loaded.refs) {
      const [, field, index] = use.segments;
      if (field !== "extensions" || typeof index !== "number" || use.segments.length !== 3) continue;
      if (use.ref.kind !== "Extension" || use.ref.name !== name || use.ref.package !== BUILTIN_PACKAGE) continue;
      const item = written[index];
      uses.push({ loaded, index, config: isJsonObject(item) ? item.config : undefined });
    }
  }
  return uses;
}

/** Run after checkRefs, which marks the refs that resolve to built-ins. */
export function checkMcpConfig(options: { resources: readonly LoadedResource[]; issues: IssueList }): void {
  for (const { loaded, index, config } of mcpUses(options.resources)) {
    const at: PathSegment[] = ["spec", "extensions", index, "config"];
    validateValue({ schema: mcpConfigSchema, value: config ?? {}, site: loaded.site, at, issues: options.issues });
    // Past a shape error too, so that every problem is reported at once.
    const servers = isJsonObject(config) && isJsonObject(config.servers) ? config.servers : {};
    for (const [name, server] of Object.entries(servers)) {
      if (isJsonObject(server))
        checkServer({ name, server, loaded, at: [...at, "servers", name], issues: options.issues });
    }
  }
}

function checkServer(options: {
  name: string;
  server: JsonObject;
  loaded: LoadedResource;
  at: PathSegment[];
  issues: IssueList;
}): void {
  const { name, server, loaded, at, issues } = options;
  const problem = toolNameProblem(name);
  if (problem) {
    issues.at(loaded.site, at, {
      code: "E_CONFIG_TOOL_NAME",
      message: `expected an MCP server name ${problem.expected} (it prefixes its tools: ${name}__<tool>), found "${name}"`,
      suggestion: `try "${suggestName(name)}"`,
    });
  }
  const stdio = server.command !== undefined;
  const http = server.url !== undefined;
  if (stdio === http) {
    issues.at(loaded.site, at, {
      code: "E_CONFIG_MCP_TRANSPORT",
      message: `expected exactly one of command (stdio) and url (Streamable HTTP), found ${stdio ? "both" : "neither"}`,
      suggestion: "a local server: {command: npx, args: [...]}; a remote one: {url: http://…/mcp}",
    });
    return;
  }
  for (const field of stdio ? HTTP_FIELDS : STDIO_FIELDS) {
    if (server[field] === undefined) continue;
    issues.at(loaded.site, [...at, field], {
      code: "E_CONFIG_MCP_TRANSPORT",
      message: `expected ${field} only with ${stdio ? "url (Streamable HTTP)" : "command (stdio)"}, found it on a ${stdio ? "stdio" : "Streamable HTTP"} server`,
      suggestion: `remove ${field}`,
    });
  }
}
