/**
 * The probe of issue 11, for real: `goondan run --input` (through the Node launcher, as `npx goondan run`
 * runs it, and through Bun directly), with a model API key and GOONDAN_API_TOKEN in its environment, as root
 * and as a non-root user; the loopback model asks for one call of the built-in bash__exec that reads every
 * /proc/<pid>/environ and /proc/<pid>/cmdline it can; neither secret may be in what it found. A control run
 * of the same handler with `isolation: none`, as root, shows the scan does find them where a process
 * holding them is in reach.
 */
import { describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN } from "../helpers/goondan-process.ts";
import { startLoopbackLlm, toolResults, type LoopbackRequest } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
const onLinux = process.platform === "linux";
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const node = Bun.which("node");
const setpriv = Bun.which("setpriv");

/** A scan that prints "FOUND <file>" for each environ or cmdline holding a needle, then how many environs it read. */
function scanFor(needles: string[]): string {
  // Each needle's last character is bracketed, so the scan's own command line never matches itself.
  const patterns = needles.map((needle) => `-e "${needle.slice(0, -1)}[${needle.slice(-1)}]"`).join(" ");
  return `n=0; for d in /proc/[0-9]*; do if tr "\\0" "\\n" < $d/environ 2>/dev/null | grep -q ${patterns}; then echo "FOUND $d/environ"; fi; if tr "\\0" " " < $d/cmdline 2>/dev/null | grep -q ${patterns}; then echo "FOUND $d/cmdline"; fi; if cat $d/environ >/dev/null 2>&1; then n=$((n+1)); fi; done; echo "read $n"`;
}

function bundle(options: { endpoint: string; isolation: "default" | "none"; owner?: number }): {
  dir: string;
  stateRoot: string;
} {
  const dir = mkdtempSync(join(tmpdir(), "goondan-secrets-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  const yaml = [
    "apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: m }",
    `spec: { provider: openai-compatible, model: loopback, endpoint: ${JSON.stringify(options.endpoint)}, apiKey: { valueFrom: { env: SCAN_API_KEY } } }`,
    // The built-in bash as the agent gets it; the control run's local Tool re-exports its handlers with isolation: none.
    "---\napiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: shell }",
    "spec: { entry: ./shell.ts, config: { isolation: none }, exports: [{ name: exec, parameters: { type: object, properties: { command: { type: string } }, required: [command] } }] }",
    "---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: prober }",
    `spec: { modelConfig: { modelRef: Model/m }, prompt: { system: probe }, tools: [${options.isolation === "none" ? "Tool/shell" : '{ kind: Tool, name: bash, package: "@goondan/base" }'}] }`,
    "---\napiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: probe }",
    "spec: { entryAgent: Agent/prober, agents: [Agent/prober] }",
    "",
  ].join("\n");
  writeFileSync(join(dir, "goondan.yaml"), yaml);
  writeFileSync(
    join(dir, "shell.ts"),
    `export { handlers } from ${JSON.stringify(join(import.meta.dir, "../../src/base/tools/bash.ts"))};\n`,
  );
  const stateRoot = join(dir, "state");
  mkdirSync(stateRoot);
  if (options.owner !== undefined) {
    for (const path of [dir, stateRoot, join(dir, "goondan.yaml"), join(dir, "shell.ts")])
      chownSync(path, options.owner, options.owner);
    chmodSync(dir, 0o755);
  }
  return { dir, stateRoot };
}

/** Runs one `goondan run --input` whose single bash call scans /proc; returns the scan's stdout. */
async function scanThroughGoondan(options: {
  launcher: "node" | "bun";
  user: "self" | "nobody";
  isolation: "default" | "none";
}): Promise<string> {
  const apiKey = `sk-probe-${randomBytes(12).toString("hex")}`;
  const apiToken = `tok-probe-${randomBytes(12).toString("hex")}`;
  const llm = await startLoopbackLlm({
    respond: (request: LoopbackRequest) =>
      toolResults(request).length > 0
        ? { text: "scanned" }
        : {
            toolCalls: [
              {
                name: options.isolation === "none" ? "shell__exec" : "bash__exec",
                args: { command: scanFor([apiKey, apiToken]) },
              },
            ],
          },
  });
  defer(() => llm.close());
  const owner = options.user === "nobody" ? NOBODY : undefined;
  const { dir, stateRoot } = bundle({
    endpoint: llm.url,
    isolation: options.isolation,
    ...(owner === undefined ? {} : { owner }),
  });
  const runtime = options.launcher === "node" ? (node as string) : process.execPath;
  const asUser =
    owner === undefined ? [] : [setpriv as string, `--reuid=${owner}`, `--regid=${owner}`, "--clear-groups"];
  const proc = Bun.spawn([...asUser, runtime, GOONDAN_BIN, "run", dir, "--input", "scan", "--state-root", stateRoot], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: stateRoot,
      SCAN_API_KEY: apiKey,
      GOONDAN_API_TOKEN: apiToken,
      GOONDAN_LOG_LEVEL: "warn",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  defer(() => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`goondan run exited ${code}: ${stderr.slice(-2000)}`);
  expect(stdout).toBe("scanned\n");
  const result = toolResults(llm.requests.at(-1) as LoopbackRequest)[0]?.content as {
    status: string;
    output: { stdout: string };
  };
  expect(result.status).toBe("ok");
  return result.output.stdout;
}

const users: ("self" | "nobody")[] = isRoot && setpriv !== null ? ["self", "nobody"] : ["self"];

describe.skipIf(!onLinux)("a bash tool command under goondan run cannot read any goondan process's secrets", () => {
  for (const launcher of ["node", "bun"] as const) {
    for (const user of users) {
      it(`through the ${launcher} launcher, as ${user === "self" ? (isRoot ? "root" : "this user") : "nobody"}`, async () => {
        if (launcher === "node" && node === null) throw new Error("node is not on PATH");
        const found = await scanThroughGoondan({ launcher, user, isolation: "default" });
        expect(found).toMatch(/read [1-9]\d*\n/); // it read environments: those in its sandbox
        expect(found).not.toContain("FOUND");
      }, 30_000);
    }
  }

  // Only root can read the non-dumpable goondan processes, and the Node launcher blanks its own copy: as any
  // other user even an unisolated scan finds nothing any more.
  it.skipIf(!isRoot)(
    "(control) as root with isolation: none, the same scan finds them",
    async () => {
      const found = await scanThroughGoondan({ launcher: "node", user: "self", isolation: "none" });
      expect(found).toContain("FOUND");
    },
    30_000,
  );
});
