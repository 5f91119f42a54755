/**
 * The Tool Registry of one agent process: every export of every Tool resource (its entry module
 * imported ONCE per process, cached by absolute path), plus the tools extensions add with
 * `api.tools.register(item, handler)`. Each export's argument schema is compiled once per process: dynamic
 * tools at registration, config tools (already checked by the config plane) on their first call.
 * The registry holds what CAN run; the per-step catalog (tool-catalog.ts) decides what MAY run.
 */
import { resolve } from "node:path";
import { BUILTIN_PACKAGE, type ToolResource } from "../config/types.ts";
import { ConfigError } from "../shared/errors.ts";
import type { JsonObject } from "../shared/json.ts";
import { compileArgsValidator, type ArgsValidator } from "./args-validator.ts";
import { buildToolName, isValidExportName, isValidFullToolName, isValidToolPartName } from "./naming.ts";
import { DEFAULT_ERROR_MESSAGE_LIMIT } from "./tool-errors.ts";
import type { ToolCatalogItem, ToolHandler, ToolSource } from "./types.ts";

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
/** The built-in tool whose calls may run again after a restart (see ToolRegistryEntry.resumable). */
const RESUMABLE_BUILTIN_TOOL = "agents";
const DEFAULT_PARAMETERS: JsonObject = { type: "object", properties: {} };

export interface ToolRegistryEntry {
  readonly item: ToolCatalogItem;
  readonly handler: ToolHandler;
  /** Compiled once; returns null for valid arguments. */
  readonly validate: ArgsValidator;
  readonly timeoutMs: number;
  readonly errorMessageLimit: number;
  /** The Tool resource's `spec.config`, `{}` when unset; handed to the handler as `ctx.config`. */
  readonly config: JsonObject;
  /** True for tools added with `register()` (extensions, MCP). */
  readonly dynamic: boolean;
  /**
   * Safe to run again with the same tool call id after a crash or restart, because what it does is identified by
   * that id and not done twice (the built-in `agents` tool: the orchestrator dedupes its requests). Other tools
   * whose call started are answered as interrupted instead.
   */
  readonly resumable: boolean;
  /**
   * Running it twice with the same arguments does no more than running it once (a Tool export's `idempotent`, an
   * MCP tool's `readOnlyHint` or `idempotentHint`, an extension's `register(..., {idempotent: true})`). A step whose
   * calls are all idempotent or resumable commits them before they run without waiting for the disk: after a crash
   * the step is either gone (the model is asked again) or its calls answered as interrupted, never run twice for
   * want of a record that mattered.
   */
  readonly idempotent: boolean;
}

export interface RegisterToolOptions {
  /** Used when the item has no `source` of its own (an MCP bridge sets `{type: "mcp", …}` on the item). Default `{type: "extension", name: "extension"}`. */
  source?: ToolSource;
  /** Default 60000. */
  timeoutMs?: number;
  /** Default 1000. */
  errorMessageLimit?: number;
  config?: JsonObject;
  /** See ToolRegistryEntry.idempotent. Default false. */
  idempotent?: boolean;
}

type HandlerModule = { handlers?: unknown };
const moduleCache = new Map<string, Promise<HandlerModule>>();

/** Imports a handler module once per process (by absolute path). */
export function importToolModule(entryPath: string): Promise<HandlerModule> {
  let loaded = moduleCache.get(entryPath);
  if (loaded === undefined) {
    loaded = import(entryPath) as Promise<HandlerModule>;
    moduleCache.set(entryPath, loaded);
    loaded.catch(() => moduleCache.delete(entryPath));
  }
  return loaded;
}

export class ToolRegistry {
  private readonly entries = new Map<string, ToolRegistryEntry>();

  /**
   * Loads every export of `resources`. Throws ConfigError (E_CONFIG_*) when an entry cannot be imported,
   * lacks `handlers` or a handler, a name is invalid or duplicated, or a schema does not compile.
   */
  static async fromResources(resources: readonly ToolResource[]): Promise<ToolRegistry> {
    const registry = new ToolRegistry();
    for (const resource of resources) await registry.addResource(resource);
    return registry;
  }

  /** Adds one Tool resource's exports (used by fromResources). */
  async addResource(resource: ToolResource): Promise<void> {
    const where = `${resource.source.file}#${resource.source.docIndex}`;
    const resourceName = resource.metadata.name;
    if (!isValidToolPartName(resourceName)) {
      throw new ConfigError(
        "E_CONFIG_TOOL_NAME_INVALID",
        `${where}.metadata.name: expected lowercase letters, digits, '-' or '_' without '__', got ${JSON.stringify(resourceName)}`,
      );
    }
    if (resource.spec.exports.length === 0) {
      throw new ConfigError("E_CONFIG_SCHEMA_INVALID", `${where}.spec.exports: expected at least one export, got none`);
    }
    const entryPath = resolve(resource.source.baseDir, resource.spec.entry);
    let module: HandlerModule;
    try {
      module = await importToolModule(entryPath);
    } catch (error) {
      throw new ConfigError(
        "E_CONFIG_ENTRY_NOT_FOUND",
        `${where}.spec.entry: cannot import ${entryPath}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const handlers = module.handlers;
    if (handlers === null || typeof handlers !== "object") {
      throw new ConfigError(
        "E_CONFIG_TOOL_HANDLERS_MISSING",
        `${where}.spec.entry: expected ${entryPath} to export \`handlers\` (an object of functions), got ${typeof handlers}`,
      );
    }
    resource.spec.exports.forEach((spec, index) => {
      const path = `${where}.spec.exports[${index}]`;
      if (!isValidExportName(spec.name)) {
        throw new ConfigError(
          "E_CONFIG_TOOL_NAME_INVALID",
          `${path}.name: expected letters, digits, '-' or '_' without '__', got ${JSON.stringify(spec.name)}`,
        );
      }
      const handler = Object.hasOwn(handlers, spec.name) ? (handlers as Record<string, unknown>)[spec.name] : undefined;
      if (typeof handler !== "function") {
        throw new ConfigError(
          "E_CONFIG_TOOL_HANDLER_MISSING",
          `${path}: expected \`handlers[${JSON.stringify(spec.name)}]\` to be a function in ${entryPath}, got ${typeof handler}`,
          {
            suggestion: `defined handlers: ${Object.keys(handlers).join(", ") || "(none)"}`,
          },
        );
      }
      const item: ToolCatalogItem = {
        name: buildToolName(resourceName, spec.name),
        ...(spec.description === undefined ? {} : { description: spec.description }),
        parameters: spec.parameters ?? DEFAULT_PARAMETERS,
        source: { type: "config", name: resourceName },
      };
      this.add(item, handler as ToolHandler, {
        timeoutMs: spec.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        errorMessageLimit: resource.spec.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT,
        config: resource.spec.config ?? {},
        dynamic: false,
        resumable: resource.source.package === BUILTIN_PACKAGE && resourceName === RESUMABLE_BUILTIN_TOOL,
        idempotent: spec.idempotent === true,
        where: path,
      });
    });
  }

  /** `api.tools.register(item, handler)`: a dynamic tool, shown in every later catalog. Throws ConfigError on a bad item. */
  register(item: ToolCatalogItem, handler: ToolHandler, options: RegisterToolOptions = {}): void {
    if (!isValidFullToolName(item.name)) {
      throw new ConfigError(
        "E_CONFIG_TOOL_NAME_INVALID",
        `api.tools.register: expected a name like "resource__export" (letters, digits, '-', '_', at most 64 characters), got ${JSON.stringify(item.name)}`,
      );
    }
    if (typeof handler !== "function") {
      throw new ConfigError(
        "E_CONFIG_TOOL_HANDLER_MISSING",
        `api.tools.register(${item.name}): expected a handler function, got ${typeof handler}`,
      );
    }
    const source = item.source ?? options.source ?? { type: "extension", name: "extension" };
    this.add({ ...item, parameters: item.parameters ?? DEFAULT_PARAMETERS, source }, handler, {
      timeoutMs: options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      errorMessageLimit: options.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT,
      config: options.config ?? {},
      dynamic: true,
      idempotent: options.idempotent === true,
      where: `api.tools.register(${item.name})`,
    });
  }

  /**
   * Removes a dynamic tool; returns whether it was there. Config tools cannot be removed. With `owner`, only a
   * tool that owner registered goes (its source's name, or an MCP source's extensionName): one extension
   * cannot remove another's tools.
   */
  unregister(name: string, options: { owner?: string } = {}): boolean {
    const entry = this.entries.get(name);
    if (entry === undefined || !entry.dynamic) return false;
    if (options.owner !== undefined && !ownedBy(entry.item, options.owner)) return false;
    return this.entries.delete(name);
  }

  get(name: string): ToolRegistryEntry | undefined {
    return this.entries.get(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** Dynamic tools in registration order (the catalog appends them after config tools). */
  dynamicItems(): ToolCatalogItem[] {
    const items: ToolCatalogItem[] = [];
    for (const entry of this.entries.values()) if (entry.dynamic) items.push(entry.item);
    return items;
  }

  private add(
    item: ToolCatalogItem,
    handler: ToolHandler,
    options: {
      timeoutMs: number;
      errorMessageLimit: number;
      config: JsonObject;
      dynamic: boolean;
      resumable?: boolean;
      idempotent?: boolean;
      where: string;
    },
  ): void {
    if (this.entries.has(item.name)) {
      throw new ConfigError(
        "E_CONFIG_DUPLICATE_NAME",
        `${options.where}: a tool named ${item.name} is already registered`,
      );
    }
    if (!(options.timeoutMs > 0) || !(options.errorMessageLimit > 0)) {
      throw new ConfigError(
        "E_CONFIG_SCHEMA_INVALID",
        `${options.where}: expected positive timeoutMs and errorMessageLimit, got ${options.timeoutMs} and ${options.errorMessageLimit}`,
      );
    }
    const parameters = item.parameters ?? DEFAULT_PARAMETERS;
    const compile = (): ArgsValidator => {
      try {
        return compileArgsValidator({ schema: parameters, toolName: item.name, checked: !options.dynamic });
      } catch (error) {
        throw new ConfigError(
          "E_CONFIG_TOOL_SCHEMA_INVALID",
          `${options.where}.parameters: not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    };
    // Dynamic tools are compiled now, so a bad schema fails api.tools.register() itself. Config tools were
    // validated by the config plane (parameters compile) before any child started; they compile on their
    // first call, once, which keeps an agent's start-up free of schemas it may never use.
    let compiled: ArgsValidator | undefined = options.dynamic ? compile() : undefined;
    const validate: ArgsValidator = (args) => (compiled ??= compile())(args);
    this.entries.set(item.name, {
      item: Object.freeze({ ...item, parameters }),
      handler,
      validate,
      timeoutMs: options.timeoutMs,
      errorMessageLimit: options.errorMessageLimit,
      config: options.config,
      dynamic: options.dynamic,
      resumable: options.resumable === true,
      idempotent: options.idempotent === true,
    });
  }
}

function ownedBy(item: ToolCatalogItem, owner: string): boolean {
  return item.source?.name === owner || item.source?.mcp?.extensionName === owner;
}
