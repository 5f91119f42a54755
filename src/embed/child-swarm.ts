/**
 * `startSwarm` when the orchestrator cannot run in the caller's process (Node: it needs Bun.spawn and bun:sqlite):
 * it runs `goondan run` as a child under Bun, on a free port unless told otherwise, and resolves once the child logs
 * `ready` with the port it listens on (its stdout, the JSON log, is read for that line and not shown; its stderr is
 * passed on); `stop()` asks it to drain (SIGTERM, as Ctrl+C would) and kills it after 30 s.
 * Uses only node: modules, so it runs on Node and Bun alike. A child that exits before it is ready is an error with
 * the end of its stderr (an invalid bundle's issues, a missing key).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "../client/goondan-client.ts";
import { bundleOnDisk } from "./bundle-source.ts";
import type { RunningSwarm, StartSwarmOptions } from "./swarm-options.ts";

/** `bin/goondan`: two folders up from src/embed/ and from dist/embed/ alike. */
const GOONDAN_BIN = fileURLToPath(new URL("../../bin/goondan", import.meta.url));
const STOP_GRACE_MS = 30_000;

/** The Bun to run the child with. */
export function bunExecutable(options: StartSwarmOptions): string {
  if (options.bunPath) return options.bunPath;
  if (process.versions.bun !== undefined) return process.execPath;
  const fromEnv = (options.env ?? process.env).GOONDAN_BUN;
  if (fromEnv) return fromEnv;
  try {
    const packaged = join(dirname(createRequire(import.meta.url).resolve("bun/package.json")), "bin", "bun.exe");
    if (existsSync(packaged)) return packaged;
  } catch {
    // the bun npm package is not installed: PATH then
  }
  return "bun";
}

export async function startChildSwarm(options: StartSwarmOptions): Promise<RunningSwarm> {
  const source = bundleOnDisk(options.bundle);
  const env = { ...(options.env ?? process.env), ...(options.token ? { GOONDAN_API_TOKEN: options.token } : {}) };
  // Its stdout is its JSON log, read here for the `ready` line (an info line) and not shown; its stderr is shown.
  const childEnv = { ...env, GOONDAN_LOG_LEVEL: "info" };
  const args = [GOONDAN_BIN, "run", source.path, "--port", String(options.port ?? 0)];
  if (options.host) args.push("--host", options.host);
  if (options.swarm) args.push("--swarm", options.swarm);
  if (options.stateRoot) args.push("--state-root", resolve(options.stateRoot));
  const child = spawn(bunExecutable(options), args, { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let stderrTail = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    stderrTail = (stderrTail + text).slice(-4000);
    process.stderr.write(text);
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const ready = new Promise<{ host: string; port: number }>((found, failed) => {
    let buffer = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      buffer += text;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const log = parsed(line);
        if (log?.msg === "ready" && typeof log.port === "number")
          found({ host: typeof log.host === "string" ? log.host : "127.0.0.1", port: log.port });
      }
    });
    child.once("error", failed);
    void exited.then((code) =>
      failed(new Error(`startSwarm: goondan run exited with ${code} before it was ready: ${stderrTail.trim()}`)),
    );
    setTimeout(
      () => failed(new Error(`startSwarm: goondan run was not ready within ${options.readyTimeoutMs ?? 60_000} ms`)),
      options.readyTimeoutMs ?? 60_000,
    ).unref();
  });
  const stopChild = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    process.off("exit", killOnExit);
    source.dispose();
  };
  let address: { host: string; port: number };
  try {
    address = await ready;
  } catch (error) {
    await stopChild();
    throw error;
  }
  const baseUrl = `http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
  const token = env.GOONDAN_API_TOKEN;
  let stopped: Promise<void> | undefined;
  return {
    client: createClient({ baseUrl, ...(token ? { token } : {}) }),
    baseUrl,
    mode: "child",
    stop: () => (stopped ??= stopChild()),
  };
}

function parsed(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
