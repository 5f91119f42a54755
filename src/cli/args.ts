/**
 * A small, strict argv parser shared by every command: declared flags only, `--flag value` and
 * `--flag=value`, booleans, repeated positionals. Unknown flags are usage errors (exit 2) that name the closest
 * declared flag.
 */
import { UsageError } from "../shared/errors.ts";
import { didYouMean } from "../config/suggest.ts";

export interface FlagSpec {
  type: "string" | "boolean" | "number";
  description: string;
  /** Allowed values for a string flag. */
  choices?: readonly string[];
}

export interface ParsedArgs {
  flags: Record<string, string | boolean | number | undefined>;
  positionals: string[];
}

export function parseArgs(
  argv: readonly string[],
  spec: Record<string, FlagSpec>,
  options: { maxPositionals?: number } = {},
): ParsedArgs {
  const flags: ParsedArgs["flags"] = {};
  const positionals: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg !== "-") throw new UsageError("E_USAGE_UNKNOWN_FLAG", `unknown flag ${arg}`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const flag = spec[name];
    if (!flag) {
      const meant = didYouMean(name, Object.keys(spec), (known) => `--${known}`);
      throw new UsageError("E_USAGE_UNKNOWN_FLAG", `unknown flag --${name}${meant ? `; ${meant}` : ""}`);
    }
    let raw: string | undefined = eq < 0 ? undefined : arg.slice(eq + 1);
    if (flag.type === "boolean") {
      if (raw !== undefined && raw !== "true" && raw !== "false")
        throw new UsageError("E_USAGE_BAD_VALUE", `--${name} takes no value (got ${raw})`);
      flags[name] = raw !== "false";
      continue;
    }
    if (raw === undefined) {
      raw = argv[++index];
      if (raw === undefined) throw new UsageError("E_USAGE_MISSING_VALUE", `--${name} needs a value`);
    }
    if (flag.type === "number") {
      const value = Number(raw);
      if (!Number.isFinite(value) || raw.trim() === "")
        throw new UsageError("E_USAGE_BAD_VALUE", `--${name} expects a number, got ${JSON.stringify(raw)}`);
      flags[name] = value;
    } else {
      if (flag.choices && !flag.choices.includes(raw)) {
        throw new UsageError(
          "E_USAGE_BAD_VALUE",
          `--${name} expects one of ${flag.choices.join("|")}, got ${JSON.stringify(raw)}`,
        );
      }
      flags[name] = raw;
    }
  }
  if (options.maxPositionals !== undefined && positionals.length > options.maxPositionals) {
    throw new UsageError(
      "E_USAGE_EXTRA_ARGUMENT",
      `unexpected argument ${JSON.stringify(positionals[options.maxPositionals])}`,
    );
  }
  return { flags, positionals };
}
