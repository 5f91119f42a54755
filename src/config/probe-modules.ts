/**
 * Importing Tool entry modules in a separate Bun process (probe-modules-child.ts) and collecting one
 * ProbeResult per module. A module that hangs past the timeout or ends the child gets a failed result,
 * and the probe goes on with the modules after it in a new child.
 */
import { fileURLToPath } from "node:url";
import { PROBE_MARKER, type ProbeResult } from "./probe-result.ts";

const CHILD_SCRIPT = fileURLToPath(new URL("../tools/probe-modules-child.ts", import.meta.url));

export interface ProbeOptions {
  paths: string[];
  /** Working directory of the child (the bundle dir). */
  cwd: string;
  env: Record<string, string | undefined>;
  /** Longest time one module may take to load. */
  timeoutMs: number;
}

export async function probeModules(options: ProbeOptions): Promise<Map<string, ProbeResult>> {
  const results = new Map<string, ProbeResult>();
  let pending = [...new Set(options.paths)];
  while (pending.length > 0) {
    const { reported, failure } = await runChild({ ...options, paths: pending });
    for (const result of reported) results.set(result.path, result);
    pending = pending.filter((path) => !results.has(path));
    const [culprit, ...rest] = pending;
    if (culprit === undefined) break;
    results.set(culprit, { path: culprit, loaded: false, error: failure });
    pending = rest;
  }
  return results;
}

async function runChild(options: ProbeOptions): Promise<{ reported: ProbeResult[]; failure: string }> {
  const child = Bun.spawn([process.execPath, "--no-install", CHILD_SCRIPT, ...options.paths], {
    cwd: options.cwd,
    env: Object.fromEntries(
      Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reported: ProbeResult[] = [];
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
  };
  arm();
  const stderr = new Response(child.stderr).text();
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of child.stdout) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const at = line.indexOf(PROBE_MARKER);
      if (at >= 0) {
        reported.push(JSON.parse(line.slice(at + PROBE_MARKER.length)) as ProbeResult);
        arm();
      }
      newline = buffer.indexOf("\n");
    }
  }
  const exitCode = await child.exited;
  clearTimeout(timer);
  const errorText = (await stderr).trim().split("\n").filter(Boolean).slice(-3).join(" | ");
  const failure = timedOut
    ? `timed out after ${options.timeoutMs} ms`
    : `the module ended the process while loading (exit code ${exitCode})${errorText ? `: ${errorText}` : ""}`;
  return { reported, failure };
}
