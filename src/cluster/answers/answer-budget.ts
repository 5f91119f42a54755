/**
 * What one node's answer to another may weigh: a NATS message carries at most the server's `max_payload` (1 MiB by
 * default), and an answer past it cannot be sent at all (the publish throws, the asker waits out its timeout). Every
 * read answer is measured against a budget below that limit: lists are cut to what fits (`fitByBytes`: the oldest or
 * the newest items first, saying that more remain), and an answer that still does not fit is refused with
 * `E_CLUSTER_ANSWER_TOO_LARGE` instead of being sent.
 */
import { SystemError } from "../../shared/errors.ts";

/** The server's default `max_payload`. */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** The budget of one answer on a server whose messages carry `maxPayload` bytes: room left for the envelope. */
export function answerBudget(maxPayload: number = DEFAULT_MAX_PAYLOAD): number {
  return Math.floor(maxPayload * 0.9) - 1024;
}

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

/**
 * The items that fit in `budget` bytes of JSON, taken from the start (`from: "oldest"`) or from the end (`"newest"`),
 * in their order; `more` when some were left out.
 */
export function fitByBytes<T>(
  items: readonly T[],
  budget: number,
  from: "oldest" | "newest",
): { items: T[]; more: boolean } {
  let used = 2;
  let count = 0;
  const order = from === "oldest" ? items : [...items].reverse();
  for (const item of order) {
    const size = jsonBytes(item) + 1;
    if (used + size > budget) break;
    used += size;
    count += 1;
  }
  const kept = from === "oldest" ? items.slice(0, count) : items.slice(items.length - count);
  return { items: kept, more: count < items.length };
}

/** `answer` itself when it fits in `budget`; else the refusal the asker gets instead (naming what was too large). */
export function withinBudget<T>(options: { answer: T; budget: number; what: string }): T {
  const size = jsonBytes(options.answer);
  if (size <= options.budget) return options.answer;
  throw new SystemError(
    "E_CLUSTER_ANSWER_TOO_LARGE",
    `${options.what} is ${size} bytes of JSON, more than the ${options.budget} one NATS message carries here`,
    {
      suggestion: "Read it from the node that holds it (its own API), or raise the NATS server's max_payload.",
    },
  );
}
