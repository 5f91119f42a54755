/**
 * Runs one tool call from the model and always answers with a ToolResult; a tool fault never throws.
 * Order: catalog gate (E_TOOL_NOT_IN_CATALOG / E_TOOL_NOT_FOUND, with the closest catalog names) →
 * toolCall middleware (the one compose(); it sees the arguments as the model sent them and may repair them) →
 * arguments must be a JSON object → ajv validation (compiled once, in the registry) → handler with its
 * ToolContext, raced against the export's timeout (ctx.signal aborts) → output converted to JSON and size-capped, once: a core result that middleware returns unchanged is not
 * converted or capped again; anything middleware builds or replaces is. A pending handle becomes
 * `{status: "pending", handle, output?}` at once; its completion promise, if any, goes to
 * `context.onPendingCompletion` (pending-completion.ts). The handler step itself is run-handler.ts.
 */
import { compose, type Middleware } from "../shared/compose.ts";
import type { Clock } from "../shared/clock.ts";
import { isJsonObject, type JsonObject } from "../shared/json.ts";
import { keysSuggestion } from "./args-validator.ts";
import { closestNames } from "./closest-names.ts";
import { handOverCompletion, type CapturedCompletion } from "./pending-completion.ts";
import { normalizeResult } from "./normalize-result.ts";
import { describeThrown, TOOL_ERROR_CODES, toolError } from "./tool-errors.ts";
import { resultConversionError, runHandler, type ToolInvocationContext } from "./run-handler.ts";
import { DEFAULT_MAX_OUTPUT_BYTES } from "./tool-output.ts";
import type { ToolRegistry, ToolRegistryEntry } from "./tool-registry.ts";
import type { ToolCall, ToolCallMiddlewareContext, ToolCatalogItem, ToolResult } from "./types.ts";

export type { ToolInvocationContext };
export type ToolCallMiddleware = Middleware<ToolCallMiddlewareContext, ToolResult>;
export { normalizeResult };

export interface ExecuteToolCallOptions {
  call: ToolCall;
  /** This step's catalog: only these names may run. */
  catalog: readonly ToolCatalogItem[];
  registry: ToolRegistry;
  /** Plain compose middlewares `(ctx, next)`, outermost first. Default: none. */
  middlewares?: readonly ToolCallMiddleware[];
  context: ToolInvocationContext;
  /** Timers for the per-export timeout. Default: systemClock. */
  clock?: Clock;
  /** Cap on the JSON size of an output. Default 256 KiB. */
  maxOutputBytes?: number;
}

export async function executeToolCall(options: ExecuteToolCallOptions): Promise<ToolResult> {
  try {
    return await execute(options);
  } catch (error) {
    // Only reachable through a bug of ours or a hostile value; still never let it escape.
    const described = describeThrown(error);
    return toolError({
      code: TOOL_ERROR_CODES.failed,
      name: described.name,
      message: `internal error while running the tool call: ${described.message}`,
    });
  }
}

async function execute(options: ExecuteToolCallOptions): Promise<ToolResult> {
  const { call, catalog, registry } = options;
  const name = typeof call.name === "string" ? call.name : String(call.name);
  const gate = catalogGate({ name, catalog, registry });
  if (gate.result !== undefined) return gate.result;
  const entry = gate.entry;
  const limit = entry.errorMessageLimit;

  // What the model sent, object or not: middleware may repair it; runCore refuses a non-object before validation.
  const middlewareContext: ToolCallMiddlewareContext = {
    toolName: name,
    toolCallId: String(call.id),
    args: call.args as JsonObject,
    metadata: {},
  };
  // The core's results are already converted and capped; remember them so they are not capped a second time.
  const fromCore = new WeakMap<object, ToolResult>();
  const captured: CapturedCompletion = {};
  const core = async (ctx: ToolCallMiddlewareContext): Promise<ToolResult> => {
    const produced = await runCore({ ctx, entry, options, captured }).catch((error: unknown) =>
      resultConversionError(error, limit),
    );
    fromCore.set(produced, { ...produced });
    return produced;
  };
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const final = await runChain({
    core,
    context: middlewareContext,
    middlewares: options.middlewares ?? [],
    fromCore,
    limit,
    maxOutputBytes,
  });
  handOverCompletion({
    result: final,
    captured,
    listener: options.context.onPendingCompletion,
    logger: options.context.logger,
    details: { toolName: name, toolCallId: middlewareContext.toolCallId, errorMessageLimit: limit, maxOutputBytes },
  });
  return final;
}

async function runChain(options: {
  core: (ctx: ToolCallMiddlewareContext) => Promise<ToolResult>;
  context: ToolCallMiddlewareContext;
  middlewares: readonly ToolCallMiddleware[];
  fromCore: WeakMap<object, ToolResult>;
  limit: number;
  maxOutputBytes: number;
}): Promise<ToolResult> {
  const { core, context, middlewares, limit } = options;
  let result: unknown;
  try {
    result = await (middlewares.length === 0 ? core(context) : compose(middlewares, core)(context));
  } catch (error) {
    // The core never throws (see execute), so whatever escaped the chain came from a middleware.
    const described = describeThrown(error);
    const code = described.code !== TOOL_ERROR_CODES.failed ? ` (${described.code})` : "";
    return toolError(
      {
        code: TOOL_ERROR_CODES.failed,
        name: described.name,
        message: `a toolCall middleware failed${code}: ${described.message}`,
      },
      { limit },
    );
  }
  try {
    if (unchangedFromCore(result, options.fromCore)) return result;
    return normalizeResult(result, { limit, maxOutputBytes: options.maxOutputBytes });
  } catch (error) {
    return resultConversionError(error, limit);
  }
}

/** True when `result` is a core result that middleware handed back without replacing any of its fields. */
function unchangedFromCore(result: unknown, fromCore: WeakMap<object, ToolResult>): result is ToolResult {
  if (typeof result !== "object" || result === null) return false;
  const snapshot = fromCore.get(result) as Record<string, unknown> | undefined;
  if (snapshot === undefined) return false;
  const keys = Object.keys(result);
  return (
    keys.length === Object.keys(snapshot).length &&
    keys.every((key) => (result as Record<string, unknown>)[key] === snapshot[key])
  );
}

function catalogGate(options: {
  name: string;
  catalog: readonly ToolCatalogItem[];
  registry: ToolRegistry;
}): { entry: ToolRegistryEntry; result?: undefined } | { result: ToolResult } {
  const { name, catalog, registry } = options;
  let inCatalog = false;
  for (const item of catalog) {
    if (item.name === name) {
      inCatalog = true;
      break;
    }
  }
  const entry = registry.get(name);
  if (inCatalog && entry !== undefined) return { entry };
  const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  const names = catalog.map((item) => item.name);
  const close = closestNames({ requested: name, candidates: names });
  const available =
    names.length === 0
      ? "No tools are available in this step."
      : `Available tools: ${names.slice(0, 50).join(", ")}${names.length > 50 ? ", …" : ""}.`;
  const suggestion = `${close.length > 0 ? `Did you mean ${close.join(" or ")}? ` : ""}${available}`;
  if (entry !== undefined) {
    return {
      result: toolError(
        {
          code: TOOL_ERROR_CODES.notInCatalog,
          message: `Tool '${shown}' is not available in the current Tool Catalog.`,
          suggestion,
        },
        { limit: entry.errorMessageLimit },
      ),
    };
  }
  const hint = name.includes("__") ? "" : " Tool names have the form resource__export (two underscores).";
  return {
    result: toolError({
      code: TOOL_ERROR_CODES.notFound,
      message: `Tool '${shown}' does not exist.${hint}`,
      suggestion,
    }),
  };
}

function notAnObject(name: string, args: unknown, entry: ToolRegistryEntry): ToolResult {
  const found =
    args === null ? "null" : Array.isArray(args) ? "an array" : typeof args === "string" ? "a string" : typeof args;
  const suggestion = keysSuggestion(entry.item.parameters ?? {}) ?? "Send a JSON object, e.g. {}.";
  return toolError(
    {
      code: TOOL_ERROR_CODES.invalidArgs,
      message: `Arguments for ${name} must be a JSON object, got ${found}.`,
      suggestion,
    },
    { limit: entry.errorMessageLimit },
  );
}

async function runCore(options: {
  ctx: ToolCallMiddlewareContext;
  entry: ToolRegistryEntry;
  options: ExecuteToolCallOptions;
  captured: CapturedCompletion;
}): Promise<ToolResult> {
  const { ctx, entry } = options;
  const args: unknown = ctx.args;
  if (!isJsonObject(args)) return notAnObject(ctx.toolName, args, entry);
  let problem: ReturnType<ToolRegistryEntry["validate"]>;
  try {
    problem = entry.validate(args);
  } catch (error) {
    // A schema the config plane would have refused (only reachable when a registry is built without it).
    const described = describeThrown(error);
    return toolError(
      {
        code: TOOL_ERROR_CODES.failed,
        name: described.name,
        message: `the tool ${ctx.toolName} cannot run: ${described.message}`,
        suggestion: "Fix the export's parameters in goondan.yaml; `goondan validate` lists the problem.",
      },
      { limit: entry.errorMessageLimit },
    );
  }
  if (problem !== null) {
    return toolError(
      {
        code: TOOL_ERROR_CODES.invalidArgs,
        message: problem.message,
        ...(problem.suggestion === undefined ? {} : { suggestion: problem.suggestion }),
      },
      { limit: entry.errorMessageLimit },
    );
  }
  return runHandler({
    toolName: ctx.toolName,
    toolCallId: ctx.toolCallId,
    args,
    entry,
    options: options.options,
    captured: options.captured,
  });
}
