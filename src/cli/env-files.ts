/**
 * The environment a bundle command (run, validate, doctor) works with: the exported environment, then the file
 * named with `--env-file F`, then `.env.local` and `.env` in the bundle's directory (`.env.local` being the
 * machine's own, as the public Goondan CLI reads it), then `.env` in the current directory. The
 * first that sets a variable wins (a file never overrides an exported variable), so a bundle run from another
 * directory still finds its own `.env`. Files are parsed by dotenv; a named file that does not exist is
 * E_CONFIG_ENV_FILE_MISSING, while the `.env` files are optional.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "dotenv";
import { ConfigError } from "../shared/errors.ts";

export type EnvMap = Record<string, string | undefined>;

/** The directory a bundle target names: the directory itself, or the one holding a named goondan.yaml. */
export function bundleDirOf(target: string): string {
  try {
    return statSync(target).isFile() ? dirname(target) : target;
  } catch {
    return target;
  }
}

function readEnvFile(file: string): Record<string, string> {
  return parse(readFileSync(file, "utf8"));
}

/** `env` completed from the env files; `env` itself is never changed. */
export function withEnvFiles(options: { env: EnvMap; cwd: string; bundle: string; envFile?: string }): EnvMap {
  const layers: Record<string, string>[] = [];
  if (options.envFile !== undefined) {
    const file = resolve(options.cwd, options.envFile);
    if (!existsSync(file) || !statSync(file).isFile())
      throw new ConfigError("E_CONFIG_ENV_FILE_MISSING", `--env-file ${options.envFile}: no such file (${file})`, {
        suggestion: "name an existing dotenv file, or leave --env-file out to read .env from the bundle",
      });
    layers.push(readEnvFile(file));
  }
  const seen = new Set<string>();
  const bundleDir = bundleDirOf(resolve(options.cwd, options.bundle));
  for (const file of [join(bundleDir, ".env.local"), join(bundleDir, ".env"), join(options.cwd, ".env")]) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (existsSync(file) && statSync(file).isFile()) layers.push(readEnvFile(file));
  }
  const merged: EnvMap = {};
  for (const layer of layers.reverse()) Object.assign(merged, layer);
  for (const [name, value] of Object.entries(options.env)) if (value !== undefined) merged[name] = value;
  return merged;
}
