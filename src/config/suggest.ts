/**
 * Closest-name suggestions for misspelled refs, kinds, fields and commands (Levenshtein distance, closest
 * first), and the "did you mean …?" sentence when one name is close enough to be a likely typo.
 */
export function closestFirst(target: string, candidates: Iterable<string>): string[] {
  const unique = [...new Set(candidates)];
  return unique
    .map((candidate) => ({ candidate, distance: distance(target.toLowerCase(), candidate.toLowerCase()) }))
    .sort((left, right) => left.distance - right.distance || left.candidate.localeCompare(right.candidate))
    .map((entry) => entry.candidate);
}

/** The one candidate close enough to be a likely typo, if any. */
export function likelyMeant(target: string, candidates: Iterable<string>): string | undefined {
  const [best] = closestFirst(target, candidates);
  if (best === undefined) return undefined;
  return distance(target.toLowerCase(), best.toLowerCase()) <= Math.max(2, Math.floor(best.length / 3))
    ? best
    : undefined;
}

/** `did you mean "modelRef"?` when a candidate is a likely typo of `target` (rendered by `show`), else undefined. */
export function didYouMean(
  target: string,
  candidates: Iterable<string>,
  show: (name: string) => string = (name) => JSON.stringify(name),
): string | undefined {
  const meant = likelyMeant(target, candidates);
  return meant === undefined || meant === target ? undefined : `did you mean ${show(meant)}?`;
}

/** Joins suggestion parts that are present: `did you mean X?; defined tools: …`. */
export function joinSuggestions(...parts: (string | undefined)[]): string | undefined {
  const present = parts.filter((part): part is string => part !== undefined && part !== "");
  return present.length === 0 ? undefined : present.join("; ");
}

function distance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}
