/**
 * The patterns an Eval writes (`regex` on the reply, `$regex` on a tool argument, `regex` in `fileContains`): the
 * source of a JavaScript regular expression, or `/source/flags` to give flags (`/milk/i`). One reader, so that the
 * check at load time and the scoring at run time compile the same expression.
 */

const SLASHED = /^\/(.+)\/([dgimsuy]*)$/s;

/** The expression a pattern stands for; throws SyntaxError when it does not compile. */
export function evalPattern(pattern: string, flags?: string): RegExp {
  const slashed = flags === undefined ? SLASHED.exec(pattern) : null;
  return slashed ? new RegExp(slashed[1] as string, slashed[2]) : new RegExp(pattern, flags);
}

/** Why a pattern does not compile, or undefined when it does. */
export function patternProblem(pattern: string, flags?: string): string | undefined {
  try {
    evalPattern(pattern, flags);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
