import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStateRootToken } from "../../src/http/auth/state-root-token.ts";
import { parseProcStat } from "../../src/shared/proc-stat.ts";
import { layoutImage } from "./image-layout.ts";
import { COORDINATOR_REPLY, EXAMPLE_INPUT } from "../examples/example-script.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";
import { runToExit } from "../helpers/goondan-process.ts";

realProcessTimeouts();

const repo = join(import.meta.dir, "..", "..");
const root = mkdtempSync(join(tmpdir(), "goondan-image-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Pids of every live process in a session (`/proc/<pid>/stat` field 6). */
function sessionMembers(sessionId: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (parseProcStat(readFileSync(`/proc/${entry}/stat`, "utf8"))?.session === sessionId)
        members.push(Number(entry));
    } catch {
      // the process exited while we looked
    }
  }
  return members;
}

async function readLines(options: {
  stream: ReadableStream<Uint8Array>;
  onLine: (line: string) => void;
}): Promise<void> {
  const { stream, onLine } = options;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      onLine(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
    }
  }
  if (buffer) onLine(buffer);
}

describe("the image's command, run from a directory laid out like the image", () => {
  it("serves /healthz, warns about the loopback bind without a token, and exits 0 on SIGTERM leaving no process behind", async () => {
    const layout = layoutImage({ repo, root });
    const [init, separator, runtime, ...rest] = layout.command;
    expect([init, separator, runtime]).toEqual(["/usr/bin/tini", "--", "bun"]);
    const argv = rest.map((arg) => (arg.startsWith("/") ? layout.map(arg) : arg));
    expect(existsSync(argv[0]!)).toBe(true);

    const stateRoot = layout.env.GOONDAN_STATE_ROOT!;
    // setsid puts the daemon in a session of its own, as PID 1 of a container would be: signals come
    // only from outside, and every process it leaves behind is visible as a member of that session.
    const child = Bun.spawn(["setsid", process.execPath, ...argv], {
      cwd: layout.map(layout.workdir),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...layout.env, GOONDAN_PORT: "0" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const lines: string[] = [];
    let resolveReady: (port: number) => void = () => {};
    const ready = new Promise<number>((resolve) => (resolveReady = resolve));
    const drained = Promise.all([
      readLines({
        stream: child.stdout,
        onLine: (line) => {
          lines.push(line);
          try {
            const record = JSON.parse(line) as { msg?: string; port?: number };
            if (record.msg === "ready" && typeof record.port === "number") resolveReady(record.port);
          } catch {
            // not a JSON line
          }
        },
      }),
      readLines({ stream: child.stderr, onLine: (line) => lines.push(line) }),
    ]);
    const exitedEarly = child.exited.then((code) => {
      throw new Error(`goondan exited with ${code} before ready:\n${lines.join("\n")}`);
    });
    const port = await Promise.race([ready, exitedEarly]);

    expect(lines.some((line) => line.includes("GOONDAN_API_TOKEN is not set"))).toBe(true);
    const health = Bun.spawnSync([process.execPath, layout.map("/app/docker/healthcheck.ts")], {
      env: { ...process.env, GOONDAN_PORT: String(port) },
    });
    expect(health.exitCode).toBe(0);

    // Start the bundled example's conversation so that shutdown has agent processes to drain. Without a configured
    // token the daemon made one in the state root (what `docker exec … goondan ps` reads).
    const token = readStateRootToken(stateRoot);
    expect(token).toBeDefined();
    const accepted = await fetch(`http://127.0.0.1:${port}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ input: EXAMPLE_INPUT }),
    });
    expect(accepted.status).toBe(202);
    for (let attempt = 0; attempt < 100 && sessionMembers(child.pid).length < 2; attempt++) await Bun.sleep(50);
    expect(sessionMembers(child.pid).length).toBeGreaterThanOrEqual(2);

    const stoppedAt = performance.now();
    child.kill("SIGTERM");
    const code = await child.exited;
    await drained;
    const gracePeriodMs = 10_000;
    expect({ code, withinGrace: performance.now() - stoppedAt < gracePeriodMs }).toEqual({
      code: 0,
      withinGrace: true,
    });
    expect(sessionMembers(child.pid)).toEqual([]);
    expect(readdirSync(stateRoot).length).toBeGreaterThan(0);
  }, 30_000);

  it("answers `docker run goondan run /app/bundle --input …` with the bundled example's reply, using production packages only", async () => {
    const layout = layoutImage({ repo, root: mkdtempSync(join(root, "once-")) });
    const entry = layout.command
      .slice(3, layout.command.indexOf("run"))
      .map((arg) => (arg.startsWith("/") ? layout.map(arg) : arg));
    const { code, stdout, stderr } = await runToExit({
      argv: [process.execPath, ...entry, "run", layout.map("/app/bundle"), "--input", EXAMPLE_INPUT],
      cwd: layout.map(layout.workdir),
      // HOME comes from the image's ENV, like every other variable.
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...layout.env },
    });
    expect({ code, stdout }).toEqual({ code: 0, stdout: `${COORDINATOR_REPLY}\n` });
    expect(stderr).not.toContain("GOONDAN_API_TOKEN is not set");
  }, 30_000);
});
