/**
 * What an Extension sees: `register(api, config)` and the `ExtensionApi` (pipeline, tools, state, events,
 * logger, agent, model, approvals), and the middleware it registers into the loop's three pipelines (`turn`,
 * `step`, `toolCall`, whose contexts and results the loop owns: loop/pipeline-contexts.ts). Middleware is
 * seed-style: `async (ctx) => { …; const result = await ctx.next(); …; return result }`; lower `priority` runs
 * outer (first); equal priorities keep registration order. Extension authors import these from "goondan".
 */
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ToolCatalogItem, ToolHandler, ToolRegisterOptions } from "../../tools/types.ts";
import type { PipelineContexts, PipelineType } from "../loop/pipeline-contexts.ts";
import type { ExtensionApprovals } from "../loop/tool-approvals.ts";
import type { ExtensionModel } from "../model/extension-model.ts";

export type { MessageEvent } from "../../protocol/conversation.ts";

export type PipelineMiddleware<T extends PipelineType> = (
  ctx: PipelineContexts[T]["context"] & { next(): Promise<PipelineContexts[T]["result"]> },
) => Promise<PipelineContexts[T]["result"]>;

export interface ExtensionApi {
  /** The extension's own name. */
  readonly name: string;
  readonly agent: {
    name: string;
    instanceKey: string;
    requiredTools: string[];
    tools: string[];
    /** The bundle's directory: relative paths in an extension's config are read from here (absent in hand-built test APIs). */
    bundleDir?: string;
    /** The state root: hidden from the processes the extension starts in a sandbox (absent in hand-built test APIs). */
    stateRoot?: string;
  };
  pipeline: {
    register<T extends PipelineType>(type: T, middleware: PipelineMiddleware<T>, options?: { priority?: number }): void;
  };
  tools: {
    /** `options`: the call's timeout and whether it is idempotent (ToolRegisterOptions). */
    register(item: ToolCatalogItem, handler: ToolHandler, options?: ToolRegisterOptions): void;
    /** Removes a tool this extension registered (the next step's catalog no longer has it); false when it has none by that name. */
    unregister(name: string): boolean;
  };
  /** Persisted per instance and per extension (extension-state.json). */
  state: {
    get(): JsonValue | undefined;
    set(value: JsonValue): Promise<void>;
  };
  events: {
    on(type: string, listener: (payload: JsonValue) => void): () => void;
    emit(type: string, payload: JsonValue): void;
  };
  logger: Logger;
  /** The agent's model (its params, timeout and retries), e.g. to summarise old turns. */
  model: ExtensionModel;
  /** Holding tool calls for a person's decision (toolCall middleware); absent in hand-built test APIs. */
  approvals?: ExtensionApprovals;
}

export type ExtensionRegister = (api: ExtensionApi, config: JsonObject) => void | Promise<void>;
