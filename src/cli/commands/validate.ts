/**
 * `goondan validate [bundle] [--format text|json]`: loads the bundle with every check and prints its
 * issues. Exit 0 when valid (warnings allowed), 3 when not. Text: one issue per line, path first, then a
 * summary line; json: `{valid, errors, warnings}` only.
 */
import { resolve } from "node:path";
import type { CliCommand } from "../command.ts";
import { EXIT } from "../command.ts";
import { formatIssue, loadBundle } from "../../config/load-bundle.ts";

export const command: CliCommand = {
  name: "validate",
  summary: "Validate a bundle (goondan.yaml and the resource files next to it): schemas, refs, names, files and Tool modules. Exit 0 valid, 3 invalid.",
  usage: "goondan validate [bundle] [--format text|json]",
  flags: {
    format: { type: "string", description: "output format (default text)", choices: ["text", "json"] },
  },
  maxPositionals: 1,
  async run({ flags, positionals, io }) {
    const target = resolve(io.cwd, positionals[0] ?? ".");
    const result = await loadBundle(target, { env: io.env });
    if (flags.format === "json") {
      io.stdout(`${JSON.stringify({ valid: result.valid, errors: result.errors, warnings: result.warnings }, null, 2)}\n`);
    } else {
      for (const issue of [...result.errors, ...result.warnings]) io.stdout(`${formatIssue(issue)}\n`);
      const counts = `${plural(result.errors.length, "error")}, ${plural(result.warnings.length, "warning")}`;
      io.stdout(`${result.valid ? "valid" : "invalid"}: ${target} (${counts})\n`);
    }
    return result.valid ? EXIT.ok : EXIT.configInvalid;
  },
};

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
