/**
 * How deeply JSON nests, found without recursion so that no input can exhaust the stack while it is measured:
 * `jsonTextDepth` scans JSON text (strings skipped, escapes honoured) before it is parsed, and `jsonValueDepth` walks
 * a parsed value with an explicit stack. Both stop counting at `limit + 1`, so a hostile input costs one pass at most.
 * Every body and event is held to `MAX_JSON_DEPTH`; deeper input is refused before anything stores or runs it.
 */

/** The deepest nesting goondan accepts in a body, an event's metadata or a connector's event (objects and arrays). */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of JSON text (`{}` is 1, `[{}]` is 2), or `limit + 1` once it passes `limit`. */
export function jsonTextDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
      continue;
    }
    if (code === 34) inString = true;
    else if (code === 123 /* { */ || code === 91 /* [ */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return limit + 1;
      }
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth--;
  }
  return deepest;
}

/** The nesting depth of a parsed value (a scalar is 0), or `limit + 1` once it passes `limit`. */
export function jsonValueDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, above] = stack.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    const depth = above + 1;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return limit + 1;
    }
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth]);
  }
  return deepest;
}
