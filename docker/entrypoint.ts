/**
 * The container's entry point (Dockerfile ENTRYPOINT, behind tini). It decides where the HTTP API
 * listens: on 0.0.0.0 only when `GOONDAN_API_TOKEN` is set, so the API is never reachable from outside
 * the container without a bearer token; otherwise on 127.0.0.1 with a warning. `GOONDAN_PORT` becomes
 * `--port`. Then it runs the goondan CLI in this same process, so SIGTERM reaches the orchestrator directly.
 */
import { createLogger } from "../src/shared/logger.ts";

export interface ContainerArgs {
  /** The argv handed to the goondan CLI. */
  argv: string[];
  /** Operator warnings to log before starting. */
  warnings: string[];
}

const hasFlag = (argv: readonly string[], name: string): boolean => argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));

const flagValue = (argv: readonly string[], name: string): string | undefined => {
  const index = argv.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (index < 0) return undefined;
  const arg = argv[index] as string;
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[index + 1];
};

/**
 * Adds `--host` and `--port` to a `run` command that serves the API, from the container's environment.
 * Other commands (`validate`, `doctor`, `run --input`) pass through unchanged; explicit flags always win.
 */
export function containerArgs(options: { argv: readonly string[]; env: Record<string, string | undefined> }): ContainerArgs {
  const argv = [...options.argv];
  const warnings: string[] = [];
  // `run --input` answers one event and exits without serving the API: nothing to bind, nothing to warn.
  if (argv[0] !== "run" || hasFlag(argv, "input")) return { argv, warnings };
  const token = options.env.GOONDAN_API_TOKEN;
  const hasToken = token !== undefined && token.trim() !== "";
  if (!hasFlag(argv, "host")) {
    argv.push("--host", hasToken ? "0.0.0.0" : "127.0.0.1");
    if (!hasToken) {
      warnings.push("GOONDAN_API_TOKEN is not set: the HTTP API listens on 127.0.0.1 inside the container only (unreachable through a published port); set GOONDAN_API_TOKEN to serve it on 0.0.0.0 with bearer authentication");
    }
  } else if (!hasToken && !["127.0.0.1", "localhost", "::1"].includes(flagValue(argv, "host") ?? "")) {
    warnings.push(`the HTTP API listens on ${flagValue(argv, "host")} without GOONDAN_API_TOKEN: anyone who can reach the port controls the swarm`);
  }
  const port = options.env.GOONDAN_PORT;
  if (!hasFlag(argv, "port") && port !== undefined && port.trim() !== "") argv.push("--port", port);
  return { argv, warnings };
}

if (import.meta.main) {
  const { argv, warnings } = containerArgs({ argv: process.argv.slice(2), env: process.env });
  const logger = createLogger("container");
  for (const warning of warnings) logger.warn(warning);
  const { main } = await import("../src/cli/main.ts");
  process.exitCode = await main(argv);
}
