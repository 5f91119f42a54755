/**
 * The environment a child process starts with: never the orchestrator's whole environment. A child gets
 * the basics a Unix process needs (PATH, HOME, locale, time zone, temp dir, proxies and CA settings),
 * goondan's own non-secret settings (GOONDAN_*, but never GOONDAN_API_TOKEN or GOONDAN_SECRET_*), and
 * exactly the variables its own resources name in ValueSources (an agent's model key, its tools' and
 * extensions' config). So one agent's tools cannot read another agent's keys, or the API token, through
 * /proc or their own environment.
 */
import type { Env } from "../config/value-source.ts";

const BASIC_NAMES = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "BUN_OPTIONS",
]);

const SECRET_GOONDAN_NAMES = /^GOONDAN_(API_TOKEN$|SECRET_)/;

export function isBasicEnvName(name: string): boolean {
  if (BASIC_NAMES.has(name) || name.startsWith("LC_")) return true;
  return name.startsWith("GOONDAN_") && !SECRET_GOONDAN_NAMES.test(name);
}

/** The basics from `env` plus the named variables (those that are set). */
export function childEnvironment(options: { env: Env; names?: Iterable<string> }): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env))
    if (value !== undefined && isBasicEnvName(name)) result[name] = value;
  for (const name of options.names ?? []) {
    const value = options.env[name];
    if (value !== undefined) result[name] = value;
  }
  return result;
}
