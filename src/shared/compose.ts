/**
 * The one onion `compose()` every pipeline in goondan runs through (turn, step and toolCall middleware).
 * A middleware is `async (ctx, next) => { before; const r = await next(); after; return r }`.
 * Not calling `next()` short-circuits the chain; calling it twice is an error.
 */
import { ConfigError } from "./errors.ts";

export type Middleware<C, R> = (ctx: C, next: () => Promise<R>) => Promise<R>;

/** An extension's middleware called `next()` twice: the extension's bug. */
export class MiddlewareError extends ConfigError {
  constructor(message: string) {
    super("E_MIDDLEWARE_NEXT_TWICE", message);
  }
}

export function compose<C, R>(
  middlewares: readonly Middleware<C, R>[],
  core: (ctx: C) => Promise<R>,
): (ctx: C) => Promise<R> {
  const chain = middlewares.slice();
  return (ctx: C) => {
    let lastIndex = -1;
    const dispatch = (index: number): Promise<R> => {
      if (index <= lastIndex) return Promise.reject(new MiddlewareError("next() called multiple times"));
      lastIndex = index;
      const middleware = chain[index];
      try {
        if (middleware === undefined) return Promise.resolve(core(ctx));
        return Promise.resolve(middleware(ctx, () => dispatch(index + 1)));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}

/**
 * Extension-facing middleware, as in the seeds: `async (ctx) => { …; const r = await ctx.next(); …; return r }`.
 * `fromContextMiddleware` adapts it to compose(): each layer sees its own `ctx.next`, while every other
 * property read or write goes to the one shared context object (so `ctx.args = …` is seen by inner layers).
 */
export type ContextMiddleware<C, R> = (ctx: C & { next(): Promise<R> }) => Promise<R>;

export function fromContextMiddleware<C extends object, R>(middleware: ContextMiddleware<C, R>): Middleware<C, R> {
  return (ctx, next) => {
    const layer = new Proxy(ctx, {
      get: (target, property, receiver) => (property === "next" ? next : Reflect.get(target, property, receiver)),
    }) as C & { next(): Promise<R> };
    return middleware(layer);
  };
}
