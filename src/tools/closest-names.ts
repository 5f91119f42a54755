/**
 * "Did you mean …?" for tool names: catalog names ranked by edit distance to what the model asked for,
 * also comparing against the export part alone (models often send `exec` or `bash.exec` for `bash__exec`).
 */
const MAX_COMPARED_LENGTH = 128;

export function closestNames(options: { requested: string; candidates: readonly string[]; limit?: number }): string[] {
  const requested = options.requested.slice(0, MAX_COMPARED_LENGTH).toLowerCase();
  const scored = options.candidates.map((name) => {
    const lower = name.toLowerCase();
    const exportPart = lower.includes("__") ? lower.slice(lower.indexOf("__") + 2) : lower;
    const score = Math.min(editDistance(requested, lower), editDistance(requested, exportPart) + 1);
    return { name, score };
  });
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  const limit = options.limit ?? 3;
  const threshold = Math.max(3, Math.ceil(requested.length / 2));
  const close = scored.filter((entry) => entry.score <= threshold).slice(0, limit);
  return close.map((entry) => entry.name);
}

/** Levenshtein distance (two rows). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}
