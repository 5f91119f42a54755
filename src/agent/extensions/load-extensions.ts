/**
 * Loads an Agent's extensions in its declared order: imports `Extension.spec.entry` (relative to the
 * resource's directory), calls `register(api, config)` with an `ExtensionApi` bound to that extension, and turns
 * any failure (missing module, no `register`, a throwing register) into a ConfigError naming the extension.
 */
import { isAbsolute, resolve } from "node:path";
import type { ExtensionResource } from "../../config/types.ts";
import { ConfigError, describe } from "../../shared/errors.ts";
import type { JsonObject } from "../../shared/json.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ToolCatalogItem, ToolHandler, ToolRegisterOptions } from "../../tools/types.ts";
import type { EventBus } from "./event-bus.ts";
import type { ExtensionState } from "./extension-state.ts";
import type { PipelineRegistry } from "./pipeline-registry.ts";
import type { ExtensionApprovals } from "../loop/tool-approvals.ts";
import type { ExtensionModel } from "../model/extension-model.ts";
import type { ExtensionApi, ExtensionRegister } from "./types.ts";

const NO_MODEL: ExtensionModel = {
  generateText: () => Promise.reject(new Error("no model is available to extensions here")),
};

export interface ExtensionUse {
  resource: ExtensionResource;
  /** `Extension.spec.config` with the Agent's per-use config merged over it. */
  config: JsonObject;
}

export interface LoadExtensionsOptions {
  extensions: readonly ExtensionUse[];
  agent: ExtensionApi["agent"];
  pipeline: PipelineRegistry;
  registerTool: (
    item: ToolCatalogItem,
    handler: ToolHandler,
    extensionName: string,
    options?: ToolRegisterOptions,
  ) => void;
  /** Removes a tool `extensionName` registered; default: removes nothing. */
  unregisterTool?: (name: string, extensionName: string) => boolean;
  state: ExtensionState;
  events: EventBus;
  /** `api.approvals` (absent: extensions get none, and `tool-approval` refuses the calls it guards). */
  approvals?: ExtensionApprovals;
  logger: Logger;
  /** `api.model`: the agent's model; default one that rejects (no model given). */
  model?: ExtensionModel;
  /** Module loader; default dynamic `import()`. */
  importModule?: (path: string) => Promise<unknown>;
}

function findRegister(module: unknown): ExtensionRegister | undefined {
  const record = module as { register?: unknown; default?: unknown } | undefined;
  if (typeof record?.register === "function") return record.register as ExtensionRegister;
  const fallback = record?.default as { register?: unknown } | ((...args: unknown[]) => unknown) | undefined;
  if (typeof fallback === "function") return fallback as ExtensionRegister;
  if (typeof fallback?.register === "function") return fallback.register as ExtensionRegister;
  return undefined;
}

/**
 * The thrown text goes in the message once; the thrown error is not also the `cause`, because the logger's
 * serializer appends every cause's message to the message (it read "…: boom: boom"). Its stack is kept.
 */
function loadFailure(message: string, error: unknown): ConfigError {
  const failure = new ConfigError("E_CONFIG_EXTENSION_LOAD", `${message}: ${describe(error).message}`);
  if (error instanceof Error && error.stack !== undefined)
    failure.stack = `${failure.stack ?? ""}\ncaused by: ${error.stack}`;
  return failure;
}

export async function loadExtensions(options: LoadExtensionsOptions): Promise<void> {
  const importModule = options.importModule ?? ((path: string) => import(path));
  for (const use of options.extensions) {
    const name = use.resource.metadata.name;
    const entry = isAbsolute(use.resource.spec.entry)
      ? use.resource.spec.entry
      : resolve(use.resource.source.baseDir, use.resource.spec.entry);
    let module: unknown;
    try {
      module = await importModule(entry);
    } catch (error) {
      throw loadFailure(`Extension/${name}: cannot load entry ${use.resource.spec.entry}`, error);
    }
    const register = findRegister(module);
    if (register === undefined) {
      throw new ConfigError(
        "E_CONFIG_EXTENSION_LOAD",
        `Extension/${name}: entry ${use.resource.spec.entry} must export a register(api, config) function; found exports: ${Object.keys(module as object).join(", ") || "none"}`,
      );
    }
    const api: ExtensionApi = {
      name,
      agent: options.agent,
      pipeline: {
        register: (type, middleware, registerOptions) =>
          options.pipeline.register(type, middleware, { ...registerOptions, extension: name }),
      },
      tools: {
        register: (item, handler, toolOptions) => options.registerTool(item, handler, name, toolOptions),
        unregister: (toolName) => options.unregisterTool?.(toolName, name) ?? false,
      },
      state: { get: () => options.state.get(name), set: (value) => options.state.set(name, value) },
      events: {
        on: (type, listener) => options.events.on(type, listener),
        emit: (type, payload) => options.events.emit(type, payload),
      },
      logger: options.logger.child({ extension: name }),
      model: options.model ?? NO_MODEL,
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    };
    try {
      await register(api, use.config);
    } catch (error) {
      throw loadFailure(`Extension/${name}: register() failed`, error);
    }
  }
}
