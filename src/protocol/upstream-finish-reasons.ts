/**
 * The public Goondan project's spelling of a turn's `finishReason`, beside upstream-codes.ts and by the same rule.
 * goondan's outcome carries the model's own reason (`stop`, `length`, …) plus `max_steps`, `error`, `aborted` and
 * `awaiting_approval`; the public project's `TurnResult` says `text_response` for a turn that ended with an answer.
 * Only the surface with the public project's shape, the `result` a turn middleware gets from `next()`, carries its
 * spelling; what the middleware returns is read back in goondan's, so replies, the API and stored outcomes keep
 * `stop`. Every other value is the same on both sides, which makes the extension's set a superset of upstream's.
 */

/** goondan's reason → the public project's spelling of it (only the values the two spell differently). */
export const UPSTREAM_FINISH_REASONS: ReadonlyMap<string, string> = new Map([["stop", "text_response"]]);

const OWN_FINISH_REASONS: ReadonlyMap<string, string> = new Map(
  [...UPSTREAM_FINISH_REASONS].map(([own, upstream]) => [upstream, own]),
);

/** The reason as a turn middleware sees it: `stop` → `text_response`; every other value as it is. */
export function upstreamFinishReason(reason: string): string {
  return UPSTREAM_FINISH_REASONS.get(reason) ?? reason;
}

/** The reason as goondan keeps it: `text_response` → `stop`; every other value as it is. */
export function ownFinishReason(reason: string): string {
  return OWN_FINISH_REASONS.get(reason) ?? reason;
}

/** `result` with its finishReason in the public project's spelling (the same object when nothing changes). */
export function withUpstreamFinishReason<R extends { finishReason: string }>(result: R): R {
  const reason = upstreamFinishReason(result.finishReason);
  return reason === result.finishReason ? result : { ...result, finishReason: reason };
}

/** `result` with its finishReason in goondan's spelling (the same object when nothing changes). */
export function withOwnFinishReason<R extends { finishReason: string }>(result: R): R {
  const reason = ownFinishReason(result.finishReason);
  return reason === result.finishReason ? result : { ...result, finishReason: reason };
}
