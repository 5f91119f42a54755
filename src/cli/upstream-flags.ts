/**
 * The flags of the public Goondan CLI (`gdn`) that goondan spells differently: each is rewritten into goondan's
 * own before parsing (`--json` → `--format json`, `--input-file F` → `--input <its text>`, `-c F` → the bundle
 * argument, `--instance-key` → `--instance`, `init -t minimal` → `--template default`), accepted as the no-op it
 * is here (`--foreground`, `--no-color`, `instance delete -f`), or refused with a one-line hint naming goondan's
 * equivalent (E_USAGE_UPSTREAM_FLAG). A flag a command declares itself is never touched.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../shared/errors.ts";
import type { FlagSpec } from "./args.ts";

interface Translation {
  /** Only for these commands (default: every command). */
  commands?: readonly string[];
  /** Takes a value (the next argument or `=value`). */
  value?: boolean;
  /** The arguments goondan reads instead (none: the flag is dropped). */
  rewrite?: (value: string, context: { cwd: string; flags: Record<string, FlagSpec> }) => string[];
  /** Refused with this hint. */
  hint?: string;
  /** Translated even where the command declares the flag (a value goondan spells differently). */
  always?: boolean;
}

const BUNDLE_COMMANDS = ["run", "validate", "doctor"];

const TRANSLATIONS: Record<string, Translation> = {
  "-c": { value: true, commands: BUNDLE_COMMANDS, rewrite: (value) => [value] },
  "--config": { value: true, commands: BUNDLE_COMMANDS, rewrite: (value) => [value] },
  "--json": {
    rewrite: (_value, { flags }) => {
      if (flags.format?.choices?.includes("json") !== true)
        throw new UsageError("E_USAGE_UPSTREAM_FLAG", "--json: this command prints text only");
      return ["--format", "json"];
    },
  },
  "--no-color": { rewrite: () => [] },
  "-q": { hint: "goondan prints only results and warnings by default; GOONDAN_LOG_LEVEL=error quiets the rest" },
  "--quiet": { hint: "goondan prints only results and warnings by default; GOONDAN_LOG_LEVEL=error quiets the rest" },
  "--foreground": { commands: ["run"], rewrite: () => [] },
  "--input-file": {
    commands: ["run"],
    value: true,
    rewrite: (value, { cwd }) => {
      try {
        return ["--input", readFileSync(resolve(cwd, value), "utf8")];
      } catch (error) {
        throw new UsageError("E_USAGE_BAD_VALUE", `--input-file ${value}: ${(error as Error).message}`);
      }
    },
  },
  "--instance-key": { commands: ["logs"], value: true, rewrite: (value) => ["--instance", value] },
  "-f": { commands: ["instance"], rewrite: () => [] },
  "--all": { commands: ["instance"], rewrite: () => [] },
  "-a": {
    commands: ["instance"],
    value: true,
    hint: "goondan instance list shows every instance; --format json and a filter pick one agent's",
  },
  "-n": { commands: ["instance"], value: true, hint: "goondan instance list shows every instance (no --limit)" },
  "--limit": { commands: ["instance"], value: true, hint: "goondan instance list shows every instance (no --limit)" },
  "--fix": {
    commands: ["doctor", "validate"],
    hint: "goondan reports only; each issue names its fix (the suggestion after the message)",
  },
  "-t": { commands: ["init"], value: true, always: true, rewrite: (value) => ["--template", templateName(value)] },
  "--template": {
    commands: ["init"],
    value: true,
    always: true,
    rewrite: (value) => ["--template", templateName(value)],
  },
};

/** The public CLI's `minimal` template is goondan's `default` (one agent). */
const templateName = (value: string): string => (value === "minimal" ? "default" : value);

/** `instance restart KEY`: goondan restarts through `goondan restart`. */
function subcommandHint(command: string, argv: readonly string[]): string | undefined {
  if (command === "instance" && argv[0] === "restart")
    return "use 'goondan restart --agent NAME --instance KEY' (add --fresh to clear its conversation)";
  return undefined;
}

export function translateUpstreamFlags(options: {
  command: string;
  argv: readonly string[];
  flags: Record<string, FlagSpec>;
  cwd: string;
}): string[] {
  const { command, flags } = options;
  const hint = subcommandHint(command, options.argv);
  if (hint !== undefined) throw new UsageError("E_USAGE_UPSTREAM_FLAG", `instance restart: ${hint}`);
  const shorts = new Set(Object.values(flags).flatMap((flag) => (flag.short ? [`-${flag.short}`] : [])));
  const out: string[] = [];
  for (let index = 0; index < options.argv.length; index++) {
    const arg = options.argv[index] as string;
    if (arg === "--") {
      out.push(...options.argv.slice(index));
      break;
    }
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const translation = TRANSLATIONS[name];
    const declared = (name.startsWith("--") && flags[name.slice(2)] !== undefined) || shorts.has(name);
    if (
      translation === undefined ||
      (declared && translation.always !== true) ||
      !(translation.commands ?? [command]).includes(command)
    ) {
      out.push(arg);
      continue;
    }
    if (translation.hint !== undefined) throw new UsageError("E_USAGE_UPSTREAM_FLAG", `${name}: ${translation.hint}`);
    let value = "";
    if (translation.value === true) {
      const next = eq > 0 ? arg.slice(eq + 1) : options.argv[++index];
      if (next === undefined) throw new UsageError("E_USAGE_MISSING_VALUE", `${name} needs a value`);
      value = next;
    }
    out.push(...(translation.rewrite?.(value, { cwd: options.cwd, flags }) ?? []));
  }
  return out;
}
