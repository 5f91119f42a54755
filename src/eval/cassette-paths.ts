/**
 * Where a case's cassettes live: `evals/cassettes/<eval>/<case>.jsonl` in the bundle for its agents' model calls
 * (every agent of the Swarm, in call order) and `<case>.judge.jsonl` beside it for its judge's. Kept in the bundle,
 * so they are committed with the cases and `goondan eval --replay` runs anywhere with no network.
 */
import { join } from "node:path";
import { EVALS_DIRECTORY } from "../config/bundle-files.ts";

export function cassettePaths(options: { bundleDir: string; evalName: string; caseName: string }): {
  agents: string;
  judge: string;
} {
  const dir = join(options.bundleDir, EVALS_DIRECTORY, "cassettes", options.evalName);
  return { agents: join(dir, `${options.caseName}.jsonl`), judge: join(dir, `${options.caseName}.judge.jsonl`) };
}
