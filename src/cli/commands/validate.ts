/**
 * `goondan validate [bundle] [--format text|json] [--static] [--probe-mcp]`: loads the bundle with every check and
 * prints its issues. Exit 0 when valid (warnings allowed), 3 when not. Text: one issue per line, path first, then a
 * summary line; json: `{valid, errors, warnings}` only (plus `mcp`, the servers, with --probe-mcp). The Tool
 * checklist imports each Tool entry module in a separate Bun probe process, which runs the module's top-level code;
 * `--static` skips that step, so a bundle nobody vouches for is checked without running any of its code.
 * `--probe-mcp` also starts each server of the built-in mcp extension once and lists its tools (probe-mcp.ts).
 */
import { relative, resolve } from "node:path";
import type { ConfigIssue } from "../../config/types.ts";
import type { CliCommand } from "../command.ts";
import { EXIT } from "../command.ts";
import { formatIssue, loadBundle } from "../../config/load-bundle.ts";
import { formatServerReport, probeMcp } from "../../config/probe-mcp.ts";

export const command: CliCommand = {
  name: "validate",
  summary: [
    "Validate a bundle (goondan.yaml and the resource files next to it): schemas, refs, names, files and Tool modules. Exit 0 valid, 3 invalid.",
    "Checking Tool modules imports each entry module in a separate Bun process, which runs its top-level code",
    "(with this environment); use --static for a bundle you do not trust.",
  ].join("\n"),
  usage: "goondan validate [bundle] [--format text|json|github] [--strict] [--static] [--probe-mcp]",
  flags: {
    format: {
      type: "string",
      description: "output format (default text; github: workflow commands that annotate the files in a pull request)",
      choices: ["text", "json", "github"],
    },
    strict: { type: "boolean", description: "treat warnings as errors (exit 3 when there is any)" },
    static: {
      type: "boolean",
      description: "run none of the bundle's code: skip importing Tool modules (their handlers go unchecked)",
    },
    "probe-mcp": {
      type: "boolean",
      description:
        "also start each MCP server of the mcp extension once, list its tools, and stop it (needs the env vars its config reads)",
    },
  },
  maxPositionals: 1,
  bundleEnv: true,
  async run({ flags, positionals, io }) {
    const target = resolve(io.cwd, positionals[0] ?? ".");
    const staticOnly = flags.static === true;
    const result = await loadBundle(target, { env: io.env, checkModules: !staticOnly });
    const probe =
      flags["probe-mcp"] === true && result.bundle ? await probeMcp({ bundle: result.bundle, env: io.env }) : undefined;
    if (probe) {
      result.errors.push(...probe.errors);
      result.warnings.push(...probe.warnings);
      result.valid = result.errors.length === 0;
    }
    if (flags.strict === true && result.warnings.length > 0) result.valid = false;
    if (flags.format === "github") {
      for (const issue of [...result.errors, ...result.warnings])
        io.stdout(`${githubAnnotation(issue, target, io.cwd)}\n`);
    } else if (flags.format === "json") {
      io.stdout(
        `${JSON.stringify({ valid: result.valid, errors: result.errors, warnings: result.warnings, ...(probe ? { mcp: probe.servers } : {}) }, null, 2)}\n`,
      );
    } else {
      for (const server of probe?.servers ?? []) io.stdout(`${formatServerReport(server)}\n`);
      for (const issue of [...result.errors, ...result.warnings]) io.stdout(`${formatIssue(issue)}\n`);
      const counts = `${plural(result.errors.length, "error")}, ${plural(result.warnings.length, "warning")}`;
      io.stdout(
        `${result.valid ? "valid" : "invalid"}: ${target} (${counts})${staticOnly ? "; Tool modules not loaded (--static)" : ""}\n`,
      );
    }
    return result.valid ? EXIT.ok : EXIT.configInvalid;
  },
};

/** A GitHub Actions workflow command (`::error file=…,line=…::…`), so a pull request shows the issue on its line. */
function githubAnnotation(issue: ConfigIssue, target: string, cwd: string): string {
  const file = issue.path.split("#")[0] ?? "";
  const fields = [
    `file=${relative(cwd, resolve(target, file))}`,
    ...(issue.line === undefined ? [] : [`line=${issue.line}`]),
    ...(issue.column === undefined ? [] : [`col=${issue.column}`]),
    `title=${issue.code}`,
  ];
  const text = `${issue.path}: ${issue.message}${issue.suggestion ? ` (${issue.suggestion})` : ""}`;
  const escaped = (value: string) => value.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
  return `::${issue.severity === "error" ? "error" : "warning"} ${fields.join(",")}::${escaped(text)}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
