/**
 * Every command's argv, parsed by commander from the command's declared flags: `--flag value`, `--flag=value`,
 * short flags (`-p 8790`, `-w`), booleans, and positionals up to the command's maximum. Commander's errors come
 * back as UsageErrors (exit 2) with goondan's codes and one-line messages, an unknown flag naming the closest
 * declared one. A flag the public Goondan CLI knows is first rewritten or answered by upstream-flags.ts.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { UsageError } from "../shared/errors.ts";
import { didYouMean } from "../config/suggest.ts";

export interface FlagSpec {
  type: "string" | "boolean" | "number";
  description: string;
  /** Allowed values for a string flag. */
  choices?: readonly string[];
  /** A one-letter short form (`w` for `-w`). */
  short?: string;
}

export interface ParsedArgs {
  flags: Record<string, string | boolean | number | undefined>;
  positionals: string[];
}

function option(name: string, flag: FlagSpec): Option {
  const long = flag.type === "boolean" ? `--${name}` : `--${name} <${flag.type === "number" ? "n" : "value"}>`;
  const made = new Option(flag.short === undefined ? long : `-${flag.short}, ${long}`, flag.description);
  if (flag.type === "number")
    made.argParser((raw: string) => {
      const value = Number(raw);
      if (!Number.isFinite(value) || raw.trim() === "")
        throw new InvalidArgumentError(`--${name} expects a number, got ${JSON.stringify(raw)}`);
      return value;
    });
  if (flag.choices !== undefined) {
    const choices = flag.choices;
    made.argParser((raw: string) => {
      if (!choices.includes(raw))
        throw new InvalidArgumentError(`--${name} expects one of ${choices.join("|")}, got ${JSON.stringify(raw)}`);
      return raw;
    });
  }
  return made;
}

/** The name commander used for a flag (camelCase) back to goondan's (kebab-case). */
const kebab = (key: string): string => key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

function usageError(error: CommanderError, spec: Record<string, FlagSpec>): UsageError {
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "commander.unknownOption": {
      const name = quoted.replace(/^-+/, "").split("=")[0] ?? "";
      const meant = quoted.startsWith("--") ? didYouMean(name, Object.keys(spec), (known) => `--${known}`) : undefined;
      return new UsageError("E_USAGE_UNKNOWN_FLAG", `unknown flag ${quoted}${meant ? `; ${meant}` : ""}`);
    }
    case "commander.optionMissingArgument":
      return new UsageError("E_USAGE_MISSING_VALUE", `${longName(quoted)} needs a value`);
    case "commander.invalidArgument":
      return new UsageError(
        "E_USAGE_BAD_VALUE",
        error.message.replace(/^error: option '[^']+' argument '[^']*' is invalid\. /, ""),
      );
    default:
      return new UsageError("E_USAGE_BAD_VALUE", error.message.replace(/^error: /, ""));
  }
}

/** `-p, --port <n>` → `--port`. */
const longName = (flags: string): string => /--[a-z0-9-]+/.exec(flags)?.[0] ?? flags;

export function parseArgs(
  argv: readonly string[],
  spec: Record<string, FlagSpec>,
  options: { maxPositionals?: number } = {},
): ParsedArgs {
  // `--flag=true` / `--flag=false` for a boolean, as before commander: true keeps the flag, false drops it.
  const args = argv.flatMap((arg) => {
    const match = /^--([^=]+)=(true|false)$/.exec(arg);
    if (match === null || spec[match[1] as string]?.type !== "boolean") return [arg];
    return match[2] === "true" ? [`--${match[1]}`] : [];
  });
  const program = new Command()
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .helpOption(false)
    .allowExcessArguments(true)
    .argument("[positionals...]");
  for (const [name, flag] of Object.entries(spec)) program.addOption(option(name, flag));
  try {
    program.parse(args, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) throw usageError(error, spec);
    throw error;
  }
  const flags: ParsedArgs["flags"] = {};
  for (const [key, value] of Object.entries(program.opts())) flags[kebab(key)] = value as string | boolean | number;
  const positionals = (program.processedArgs[0] as string[] | undefined) ?? [];
  if (options.maxPositionals !== undefined && positionals.length > options.maxPositionals)
    throw new UsageError(
      "E_USAGE_EXTRA_ARGUMENT",
      `unexpected argument ${JSON.stringify(positionals[options.maxPositionals])}`,
    );
  return { flags, positionals };
}
