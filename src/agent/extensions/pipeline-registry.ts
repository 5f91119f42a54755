/**
 * Holds the middlewares registered for each pipeline and hands them out in run order (lower priority first,
 * registration order among equals), already adapted to the one `compose()` onion via `fromContextMiddleware`.
 * Each middleware remembers the extension that registered it: when it throws on its own (not an error passed up
 * from `next()`), `onFailure` hears which extension and which hook failed before the error goes on as before.
 * A turn middleware gets its `result` with the public project's `finishReason` spelling (`text_response` for
 * `stop`) and what it returns is read back in goondan's (protocol/upstream-finish-reasons.ts).
 */
import { withOwnFinishReason, withUpstreamFinishReason } from "../../protocol/upstream-finish-reasons.ts";
import { fromContextMiddleware, MiddlewareError, type Middleware } from "../../shared/compose.ts";
import type { PipelineContexts, Pipelines, PipelineType } from "../loop/pipeline-contexts.ts";
import type { PipelineMiddleware } from "./types.ts";

interface Entry {
  priority: number;
  order: number;
  extension: string | undefined;
  middleware: unknown;
}

export interface MiddlewareFailure {
  /** The registering extension's name (undefined for middleware registered outside an extension). */
  extension: string | undefined;
  hook: PipelineType;
  error: unknown;
  /** The pipeline context the middleware ran with (turn/step/toolCall). */
  context: unknown;
}

export interface PipelineRegistryOptions {
  /** Told about every middleware that threw on its own; default: nobody. */
  onFailure?: (failure: MiddlewareFailure) => void;
}

export class PipelineRegistry implements Pipelines {
  private readonly entries: Record<PipelineType, Entry[]> = { turn: [], step: [], toolCall: [] };
  private order = 0;

  constructor(private readonly options: PipelineRegistryOptions = {}) {}

  register<T extends PipelineType>(
    type: T,
    middleware: PipelineMiddleware<T>,
    options: { priority?: number; extension?: string } = {},
  ): void {
    if (!(type in this.entries))
      throw new TypeError(`pipeline type must be one of turn, step, toolCall; got ${String(type)}`);
    if (typeof middleware !== "function")
      throw new TypeError(`pipeline middleware must be a function; got ${typeof middleware}`);
    this.entries[type].push({
      priority: options.priority ?? 0,
      order: this.order++,
      extension: options.extension,
      middleware,
    });
  }

  middlewares<T extends PipelineType>(
    type: T,
  ): Middleware<PipelineContexts[T]["context"], PipelineContexts[T]["result"]>[] {
    return [...this.entries[type]]
      .sort((a, b) => a.priority - b.priority || a.order - b.order)
      .map((entry) =>
        this.reporting(
          type,
          entry,
          upstreamSpelled(
            type,
            fromContextMiddleware(entry.middleware as PipelineMiddleware<T>) as Middleware<
              PipelineContexts[T]["context"],
              PipelineContexts[T]["result"]
            >,
          ),
        ),
      );
  }

  /** Reports the middleware's own throws; errors that came up through its `next()` belong to the layers inside. */
  private reporting<C, R>(hook: PipelineType, entry: Entry, middleware: Middleware<C, R>): Middleware<C, R> {
    const onFailure = this.options.onFailure;
    if (onFailure === undefined) return middleware;
    return async (ctx, next) => {
      const passedUp = new Set<unknown>();
      try {
        return await middleware(ctx, () =>
          next().catch((error: unknown) => {
            if (!(error instanceof MiddlewareError)) passedUp.add(error);
            throw error;
          }),
        );
      } catch (error) {
        if (passedUp.size === 0) onFailure({ extension: entry.extension, hook, error, context: ctx });
        throw error;
      }
    };
  }
}

/** A turn middleware sees `next()`'s result in the public project's finishReason spelling; goondan reads its own. */
function upstreamSpelled<C, R>(type: PipelineType, middleware: Middleware<C, R>): Middleware<C, R> {
  if (type !== "turn") return middleware;
  const spelled = (result: R, respell: <S extends { finishReason: string }>(r: S) => S): R =>
    hasFinishReason(result) ? (respell(result) as R) : result;
  return async (ctx, next) =>
    spelled(await middleware(ctx, async () => spelled(await next(), withUpstreamFinishReason)), withOwnFinishReason);
}

function hasFinishReason(result: unknown): result is { finishReason: string } {
  return typeof result === "object" && result !== null && typeof Reflect.get(result, "finishReason") === "string";
}
