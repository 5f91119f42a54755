/**
 * Built-in `text-transform`: replace, slice, split, join, trim and case. Plain-string work runs inline;
 * regular expressions from the model run in a time-boxed worker (regex-sandbox.ts). Results are capped at
 * 4 MiB characters so one call cannot blow up the process. The public Goondan tool's parameter names are
 * taken with its meaning: replace `search` (literal, first occurrence unless `all`), split and join
 * `delimiter` (default a newline), split `maxParts`, trim `mode`.
 */
import type { JsonObject } from "../../shared/json.ts";
import { configNumber } from "../../tools/tool-config.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolContext, ToolHandler } from "../../tools/types.ts";
import { runRegexJob } from "./regex-sandbox.ts";

const MAX_RESULT_LENGTH = 4 * 1024 * 1024;

/** Regex work gets `config.regexBudgetMs` (default 2000) before its worker is stopped. */
const regexOptions = (ctx: ToolContext) => ({
  signal: ctx.signal,
  budgetMs: configNumber(ctx.config, "regexBudgetMs", 2000),
});
const text = (input: JsonObject): string => (typeof input.text === "string" ? input.text : "");
/** The first of `names` given as a string (a parameter and its other name, e.g. separator and delimiter). */
const stringOf = (input: JsonObject, ...names: string[]): string | undefined =>
  names.map((name) => input[name]).find((value): value is string => typeof value === "string");
const flagsOf = (input: JsonObject): string =>
  typeof input.flags === "string" ? [...new Set(input.flags.replace(/[^imsu]/g, ""))].join("") : "";

export const handlers: Record<string, ToolHandler> = {
  replace: async (ctx, input) => {
    const source = text(input);
    const pattern = stringOf(input, "pattern", "search") ?? "";
    const replacement = String(input.replacement ?? "");
    // With `search` (the public tool's spelling) only the first occurrence is replaced unless all is true.
    const all = typeof input.all === "boolean" ? input.all : typeof input.pattern === "string";
    if (input.regex === true) {
      const outcome = await runRegexJob(
        { op: "replace", text: source, pattern, flags: flagsOf(input), replacement, all, maxLength: MAX_RESULT_LENGTH },
        regexOptions(ctx),
      );
      if (!outcome.ok) throw new ToolFault(outcome.code, outcome.message);
      if (!("text" in outcome)) throw new ToolFault("E_TEXT_REGEX", "unexpected regex worker answer");
      return { text: outcome.text, replacements: outcome.count };
    }
    if (pattern === "")
      throw new ToolFault("E_TEXT_EMPTY_PATTERN", "no search string given", {
        suggestion: "Give search (or pattern): the text to find.",
      });
    const occurrences = all ? countOccurrences(source, pattern) : source.includes(pattern) ? 1 : 0;
    if (source.length + occurrences * (replacement.length - pattern.length) > MAX_RESULT_LENGTH) {
      throw new ToolFault("E_TEXT_TOO_LONG", `the result would be longer than ${MAX_RESULT_LENGTH} characters`);
    }
    // Plain mode: the replacement is literal ($ has no special meaning).
    const result = all ? source.split(pattern).join(replacement) : source.replace(pattern, () => replacement);
    return { text: result, replacements: occurrences };
  },
  slice: (_ctx, input) => {
    const characters = Array.from(text(input));
    const start = typeof input.start === "number" ? Math.trunc(input.start) : 0;
    const end = typeof input.end === "number" ? Math.trunc(input.end) : undefined;
    const sliced = characters.slice(start, end).join("");
    return { text: sliced, length: Array.from(sliced).length };
  },
  split: async (ctx, input) => {
    const source = text(input);
    const separator = stringOf(input, "separator", "delimiter") ?? "\n";
    const asked =
      typeof input.limit === "number" ? input.limit : typeof input.maxParts === "number" ? input.maxParts : undefined;
    const limit = asked === undefined ? undefined : Math.min(100_000, Math.max(1, Math.round(asked)));
    let parts: string[];
    if (input.regex === true) {
      const outcome = await runRegexJob(
        {
          op: "split",
          text: source,
          pattern: separator,
          flags: flagsOf(input),
          all: true,
          ...(limit === undefined ? {} : { limit }),
        },
        regexOptions(ctx),
      );
      if (!outcome.ok) throw new ToolFault(outcome.code, outcome.message);
      if (!("parts" in outcome)) throw new ToolFault("E_TEXT_REGEX", "unexpected regex worker answer");
      parts = outcome.parts;
    } else {
      parts = source.split(separator, limit);
    }
    return { parts, count: parts.length };
  },
  join: (_ctx, input) => {
    const parts = Array.isArray(input.parts)
      ? input.parts.map((part) => (typeof part === "string" ? part : JSON.stringify(part)))
      : [];
    const separator = stringOf(input, "separator", "delimiter") ?? "\n";
    const total = parts.reduce((sum, part) => sum + part.length, 0) + separator.length * Math.max(0, parts.length - 1);
    if (total > MAX_RESULT_LENGTH)
      throw new ToolFault("E_TEXT_TOO_LONG", `the result would be longer than ${MAX_RESULT_LENGTH} characters`);
    return { text: parts.join(separator) };
  },
  trim: (_ctx, input) => {
    const source = text(input);
    const asked = input.side ?? input.mode;
    const side = asked === "start" || asked === "end" ? asked : "both";
    const characters =
      typeof input.characters === "string" && input.characters !== ""
        ? new Set(Array.from(input.characters))
        : undefined;
    if (characters === undefined) {
      return { text: side === "start" ? source.trimStart() : side === "end" ? source.trimEnd() : source.trim() };
    }
    const chars = Array.from(source);
    let start = 0;
    let end = chars.length;
    if (side !== "end") while (start < end && characters.has(chars[start]!)) start += 1;
    if (side !== "start") while (end > start && characters.has(chars[end - 1]!)) end -= 1;
    return { text: chars.slice(start, end).join("") };
  },
  case: (_ctx, input) => ({ text: changeCase(text(input), String(input.to)) }),
};

function countOccurrences(source: string, pattern: string): number {
  let count = 0;
  for (let at = source.indexOf(pattern); at >= 0; at = source.indexOf(pattern, at + pattern.length)) count += 1;
  return count;
}

/** Words: runs of letters/digits, also split at lower→upper boundaries (camelCase) and letter/digit edges. */
function words(source: string): string[] {
  return source
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

export function changeCase(source: string, to: string): string {
  switch (to) {
    case "upper":
      return source.toUpperCase();
    case "lower":
      return source.toLowerCase();
    case "title":
      return source
        .toLowerCase()
        .replace(
          /(^|[^\p{L}\p{N}'])(\p{L})/gu,
          (_whole, before: string, letter: string) => before + letter.toUpperCase(),
        );
    case "snake":
      return words(source)
        .map((word) => word.toLowerCase())
        .join("_");
    case "kebab":
      return words(source)
        .map((word) => word.toLowerCase())
        .join("-");
    case "camel":
      return words(source)
        .map((word, index) =>
          index === 0 ? word.toLowerCase() : word.charAt(0).toUpperCase() + word.slice(1).toLowerCase(),
        )
        .join("");
    default:
      throw new ToolFault("E_TEXT_CASE", `unknown case ${JSON.stringify(to)}`, {
        suggestion: "Use one of upper, lower, title, snake, kebab, camel.",
      });
  }
}
