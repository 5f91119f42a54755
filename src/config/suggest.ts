/** Closest-name suggestions for misspelled refs and kinds (Levenshtein distance, closest first). */
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
  return distance(target.toLowerCase(), best.toLowerCase()) <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
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
