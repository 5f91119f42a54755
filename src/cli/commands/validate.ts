/**
 * `goondan validate [bundle] [--format text|json] [--probe-mcp]`: loads the bundle with every check and prints
 * its issues. Exit 0 when valid (warnings allowed), 3 when not. Text: one issue per line, path first, then a
 * summary line; json: `{valid, errors, warnings}` only (plus `mcp`, the servers, with --probe-mcp).
 * `--probe-mcp` also starts each server of the built-in mcp extension once and lists its tools (probe-mcp.ts).
 */
import { resolve } from "node:path";
import type { CliCommand } from "../command.ts";
import { EXIT } from "../command.ts";
import { formatIssue, loadBundle } from "../../config/load-bundle.ts";
import { formatServerReport, probeMcp } from "../../config/probe-mcp.ts";

export const command: CliCommand = {
  name: "validate",
  summary: "Validate a bundle's goondan.yaml: schemas, refs, names, files and Tool modules. Exit 0 valid, 3 invalid.",
  usage: "goondan validate [bundle] [--format text|json] [--probe-mcp]",
  flags: {
    format: { type: "string", description: "output format (default text)", choices: ["text", "json"] },
    "probe-mcp": { type: "boolean", description: "also start each MCP server of the mcp extension once, list its tools, and stop it (needs the env vars its config reads)" },
  },
  maxPositionals: 1,
  async run({ flags, positionals, io }) {
    const target = resolve(io.cwd, positionals[0] ?? ".");
    const result = await loadBundle(target, { env: io.env });
    const probe = flags["probe-mcp"] === true && result.bundle ? await probeMcp({ bundle: result.bundle, env: io.env }) : undefined;
    if (probe) {
      result.errors.push(...probe.errors);
      result.warnings.push(...probe.warnings);
      result.valid = result.errors.length === 0;
    }
    if (flags.format === "json") {
      io.stdout(`${JSON.stringify({ valid: result.valid, errors: result.errors, warnings: result.warnings, ...(probe ? { mcp: probe.servers } : {}) }, null, 2)}\n`);
    } else {
      for (const server of probe?.servers ?? []) io.stdout(`${formatServerReport(server)}\n`);
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
