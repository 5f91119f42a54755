/**
 * Runs one model-supplied regular expression in a Worker, so that a catastrophic pattern can be stopped
 * (the parent terminates the worker after its time budget) and a runaway replacement is cut off by size.
 * Messages: RegexJob in, RegexOutcome out (see regex-sandbox.ts).
 */
import type { RegexJob, RegexOutcome } from "./regex-sandbox.ts";

declare const self: {
  onmessage: ((event: MessageEvent<RegexJob>) => void) | null;
  postMessage(message: RegexOutcome): void;
};

self.onmessage = (event) => {
  try {
    self.postMessage(run(event.data));
  } catch (error) {
    self.postMessage({
      ok: false,
      code: "E_TEXT_REGEX",
      message: error instanceof Error ? error.message : String(error),
    });
  }
};

function run(job: RegexJob): RegexOutcome {
  const flags = job.all || job.op === "split" ? `${job.flags}g` : job.flags;
  const regex = new RegExp(job.pattern, flags);
  if (job.op === "split") {
    const parts = job.text.split(regex, job.limit);
    return { ok: true, parts: parts.map((part) => part ?? "") };
  }
  let count = 0;
  let length = job.text.length;
  const text = job.text.replace(regex, (...args: unknown[]) => {
    count += 1;
    const expanded = expand(job.replacement, args, job.text);
    length += expanded.length - String(args[0]).length;
    if (length > job.maxLength) throw new Error(`the result would be longer than ${job.maxLength} characters`);
    return expanded;
  });
  return { ok: true, text, count };
}

/** `$$`, `$&`, `` $` ``, `$'`, `$1`…`$99`, `$<name>` as in String.prototype.replace. */
function expand(replacement: string, args: unknown[], input: string): string {
  if (!replacement.includes("$")) return replacement;
  const hasGroups = typeof args[args.length - 1] === "object" && args[args.length - 1] !== null;
  const groups = hasGroups ? (args[args.length - 1] as Record<string, string | undefined>) : undefined;
  const offsetIndex = hasGroups ? args.length - 3 : args.length - 2;
  const matched = String(args[0]);
  const offset = args[offsetIndex] as number;
  const captures = args.slice(1, offsetIndex) as (string | undefined)[];
  return replacement.replace(/\$(\$|&|`|'|\d{1,2}|<([^>]*)>)/g, (whole, token: string, name: string | undefined) => {
    if (token === "$") return "$";
    if (token === "&") return matched;
    if (token === "`") return input.slice(0, offset);
    if (token === "'") return input.slice(offset + matched.length);
    if (name !== undefined) return groups?.[name] ?? (groups === undefined ? whole : "");
    const index = Number(token);
    if (index >= 1 && index <= captures.length) return captures[index - 1] ?? "";
    return whole;
  });
}
