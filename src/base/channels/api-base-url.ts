/**
 * Where a channel's API lives: the resource's config (`apiBaseUrl`, or the upstream key such as
 * `TELEGRAM_API_BASE_URL`), else the `GOONDAN_<SERVICE>_API_BASE_URL` env var (passed to every agent and
 * connector process, so a proxy or a test fake can stand in for the service), else the real service.
 * A value that is not an http(s) URL is refused with a message naming where it came from.
 */
import { ToolFault } from "../../tools/tool-errors.ts";

export interface ApiBaseUrlOptions {
  /** Config values in order of precedence (the first non-empty string wins). */
  configured: readonly unknown[];
  envName: string;
  env?: Record<string, string | undefined>;
  fallback: string;
}

export function resolveApiBaseUrl(options: ApiBaseUrlOptions): string {
  const env = options.env ?? process.env;
  const fromConfig = options.configured.find(
    (value): value is string => typeof value === "string" && value.trim() !== "",
  );
  const fromEnv = env[options.envName];
  const [value, where] =
    fromConfig !== undefined
      ? [fromConfig, "config apiBaseUrl"]
      : fromEnv !== undefined && fromEnv.trim() !== ""
        ? [fromEnv, `env ${options.envName}`]
        : [options.fallback, "default"];
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ToolFault("E_CHANNEL_BASE_URL", `${where}: expected an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ToolFault("E_CHANNEL_BASE_URL", `${where}: expected an http(s) URL, got ${url.protocol} URL`);
  return url.toString().replace(/\/+$/, "");
}
