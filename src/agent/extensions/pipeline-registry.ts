/**
 * Holds the middlewares registered for each pipeline and hands them out in run order (lower priority first,
 * registration order among equals), already adapted to the one `compose()` onion via `fromContextMiddleware`.
 */
import { fromContextMiddleware, type Middleware } from "../../shared/compose.ts";
import type { PipelineContexts, PipelineMiddleware, PipelineType } from "./types.ts";

interface Entry {
  priority: number;
  order: number;
  middleware: unknown;
}

export class PipelineRegistry {
  private readonly entries: Record<PipelineType, Entry[]> = { turn: [], step: [], toolCall: [] };
  private order = 0;

  register<T extends PipelineType>(type: T, middleware: PipelineMiddleware<T>, options: { priority?: number } = {}): void {
    if (!(type in this.entries)) throw new TypeError(`pipeline type must be one of turn, step, toolCall; got ${String(type)}`);
    if (typeof middleware !== "function") throw new TypeError(`pipeline middleware must be a function; got ${typeof middleware}`);
    this.entries[type].push({ priority: options.priority ?? 0, order: this.order++, middleware });
  }

  middlewares<T extends PipelineType>(type: T): Middleware<PipelineContexts[T]["context"], PipelineContexts[T]["result"]>[] {
    return [...this.entries[type]]
      .sort((a, b) => a.priority - b.priority || a.order - b.order)
      .map((entry) => fromContextMiddleware(entry.middleware as PipelineMiddleware<T>) as Middleware<PipelineContexts[T]["context"], PipelineContexts[T]["result"]>);
  }
}
