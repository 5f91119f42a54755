/**
 * The small path language of the json-query tool: `users[0].name`, `items.0.id`, `items[*].id`,
 * `["odd key"].x`, `[name]`, `.*`, negative indexes from the end (`[-1]`), an optional leading `$` or `.`,
 * and `.` alone for the whole value (the public Goondan tool's paths read the same). Parsing is strict and errors
 * say where the path went wrong.
 */
import type { JsonValue } from "../../shared/json.ts";
import { ToolFault } from "../../tools/tool-errors.ts";

export type PathSegment = { kind: "key"; key: string } | { kind: "index"; index: number } | { kind: "wildcard" };

const MAX_SEGMENTS = 100;
const MAX_MATCHES = 100_000;

export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let at = 0;
  const text = path.trim();
  if (text === ".") return segments;
  if (text.startsWith("$")) at = 1;
  const fail = (what: string): never => {
    throw new ToolFault("E_JSON_QUERY_PATH", `invalid path ${JSON.stringify(path)} at character ${at}: ${what}`, {
      suggestion: 'Paths look like users[0].name, items[*].id or ["key with spaces"].x',
    });
  };
  let first = true;
  while (at < text.length) {
    const char = text[at];
    if (char === ".") {
      at += 1;
      if (text[at] === "*") {
        segments.push({ kind: "wildcard" });
        at += 1;
      } else {
        const key = readIdentifier(text, at);
        if (key === "") fail("expected a key after '.'");
        segments.push({ kind: "key", key });
        at += key.length;
      }
    } else if (char === "[") {
      at += 1;
      const close = text.indexOf("]", at);
      const quote = text[at];
      if (quote === '"' || quote === "'") {
        const end = findClosingQuote(text, at);
        if (end < 0 || text[end + 1] !== "]") fail("unterminated quoted key");
        const raw = text.slice(at, end + 1);
        let key: string;
        try {
          key = quote === '"' ? (JSON.parse(raw) as string) : raw.slice(1, -1).replaceAll("\\'", "'");
        } catch {
          return fail("invalid quoted key");
        }
        segments.push({ kind: "key", key });
        at = end + 2;
      } else {
        if (close < 0) fail("missing ']'");
        const inner = text.slice(at, close).trim();
        if (inner === "*") segments.push({ kind: "wildcard" });
        else if (/^-?\d+$/.test(inner)) segments.push({ kind: "index", index: Number(inner) });
        else if (inner !== "") segments.push({ kind: "key", key: inner });
        else fail("expected a number, * or a key inside []");
        at = close + 1;
      }
    } else if (first) {
      if (char === "*") {
        segments.push({ kind: "wildcard" });
        at += 1;
      } else {
        const key = readIdentifier(text, at);
        if (key === "") fail(`unexpected ${JSON.stringify(char)}`);
        segments.push({ kind: "key", key });
        at += key.length;
      }
    } else {
      fail(`unexpected ${JSON.stringify(char)} (use '.' or '[' between parts)`);
    }
    first = false;
    if (segments.length > MAX_SEGMENTS) fail(`more than ${MAX_SEGMENTS} parts`);
  }
  return segments;
}

function readIdentifier(text: string, at: number): string {
  let end = at;
  while (end < text.length && !".[]".includes(text[end]!)) end += 1;
  return text.slice(at, end);
}

function findClosingQuote(text: string, at: number): number {
  const quote = text[at];
  for (let index = at + 1; index < text.length; index++) {
    if (text[index] === "\\") index += 1;
    else if (text[index] === quote) return index;
  }
  return -1;
}

/** Every value the path reaches, and whether the path had a wildcard (then the answer is a list). */
export function evaluatePath(
  data: JsonValue,
  segments: readonly PathSegment[],
): { matches: JsonValue[]; wildcard: boolean } {
  let current: JsonValue[] = [data];
  let wildcard = false;
  for (const segment of segments) {
    const next: JsonValue[] = [];
    for (const value of current) {
      if (segment.kind === "wildcard") {
        wildcard = true;
        if (Array.isArray(value)) next.push(...value);
        else if (value !== null && typeof value === "object") next.push(...Object.values(value));
      } else if (segment.kind === "index") {
        if (Array.isArray(value)) {
          const index = segment.index < 0 ? value.length + segment.index : segment.index;
          if (index >= 0 && index < value.length) next.push(value[index]!);
        }
      } else if (
        value !== null &&
        typeof value === "object" &&
        !Array.isArray(value) &&
        Object.hasOwn(value, segment.key)
      ) {
        next.push(value[segment.key]!);
      } else if (Array.isArray(value) && /^\d+$/.test(segment.key) && Number(segment.key) < value.length) {
        next.push(value[Number(segment.key)]!);
      }
      if (next.length > MAX_MATCHES)
        throw new ToolFault("E_JSON_QUERY_TOO_MANY", `the path matches more than ${MAX_MATCHES} values`);
    }
    current = next;
  }
  return { matches: current, wildcard };
}
