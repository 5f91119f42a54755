/**
 * How sure a p50 difference is, for two interleaved series of samples: the difference of their p50s over all
 * samples, and the same difference within each of `blocks` consecutive slices of the run (sample i of `a` and of
 * `b` were taken one after the other, so a slice holds the same stretch of time for both). The spread of the
 * slices' differences says how much the figure moves with the load of the moment; a figure whose slices disagree
 * in sign is noise.
 */
import { percentile } from "./percentile.ts";

export interface P50Difference {
  /** p50(a) − p50(b) over every sample. */
  all: number;
  /** p50(a) − p50(b) within each slice, in the order of the run. */
  slices: number[];
  /** The lowest, the median and the highest of the slices' differences. */
  low: number;
  median: number;
  high: number;
}

export function p50Difference(a: readonly number[], b: readonly number[], blocks: number): P50Difference {
  if (a.length === 0 || b.length === 0) throw new Error("p50Difference: both series need samples");
  if (!Number.isInteger(blocks) || blocks < 1)
    throw new Error(`p50Difference: blocks must be a positive integer, got ${blocks}`);
  const length = Math.min(a.length, b.length);
  const size = Math.max(1, Math.floor(length / blocks));
  const slices: number[] = [];
  for (let start = 0; start + size <= length && slices.length < blocks; start += size) {
    slices.push(percentile(a.slice(start, start + size), 50) - percentile(b.slice(start, start + size), 50));
  }
  return {
    all: percentile(a, 50) - percentile(b, 50),
    slices,
    low: Math.min(...slices),
    median: percentile(slices, 50),
    high: Math.max(...slices),
  };
}
