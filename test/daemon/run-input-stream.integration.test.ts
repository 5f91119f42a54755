/**
 * `goondan run --input` on a terminal (a pseudo-terminal from util-linux `script`) with a streaming Model: the
 * reply appears in parts as the loopback model writes it slowly, a spinner says "thinking" before, a tool line per call (the delegated worker's
 * too) comes before it, and no lifecycle log is among them. Piped (no terminal), the same run prints only the
 * whole reply on stdout. Without `script` the test is skipped with a reason, except under CI=true, where it fails.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv, lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN } from "../helpers/goondan-process.ts";
import { lastUserText, type LoopbackReply, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { realSwarm } from "../http/run-fixture.ts";

const SCRIPT = Bun.which("script");
if (SCRIPT === null && process.env.CI === "true")
  throw new Error("util-linux `script` is not installed: the run --input terminal test needs it");
if (SCRIPT === null) console.warn("skipping the run --input terminal test: util-linux `script` is not installed");

const defer = useCleanups();
const FINAL = "Streaming replies show up a few words at a time on the terminal.";
const shellQuote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;

function script(marker: string) {
  return (request: LoopbackRequest): LoopbackReply => {
    if (roleOf(request) === "worker")
      return lastRole(request) === "tool"
        ? { text: "worker done" }
        : { toolCalls: [{ name: "slow__sleep", args: { ms: 10, marker } }] };
    if (lastRole(request) === "user")
      return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: lastUserText(request) } }] };
    return { text: FINAL, chunkDelayMs: 250, textPieces: 6 };
  };
}

describe.skipIf(SCRIPT === null)("goondan run --input with a streaming Model", () => {
  it("prints the reply in parts on a terminal, after a tool line per call, with no lifecycle log", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "goondan-input-stream-"));
    defer(() => rmSync(scratch, { recursive: true, force: true }));
    const swarm = await realSwarm({ defer, streaming: true, llm: { respond: script(join(scratch, "marker")) } });
    const command = [
      process.execPath,
      GOONDAN_BIN,
      "run",
      swarm.dir,
      "--input",
      "question",
      "--state-root",
      swarm.stateRoot,
    ]
      .map(shellQuote)
      .join(" ");
    const proc = Bun.spawn([SCRIPT as string, "-qfec", command, "/dev/null"], {
      env: { ...process.env, ...childEnv, TERM: "xterm" },
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    defer(async () => {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
    });
    // What the terminal showed, and when each part of the reply first appeared.
    let screen = "";
    const seen: { at: number; length: number }[] = [];
    for await (const chunk of proc.stdout) {
      screen += new TextDecoder().decode(chunk).replaceAll("\r", "");
      const start = screen.indexOf("Streaming replies");
      if (start >= 0) {
        const shown = screen.slice(start).split("\n")[0]!.length;
        if (seen.at(-1)?.length !== shown) seen.push({ at: performance.now(), length: shown });
      }
    }
    expect(await proc.exited).toBe(0);
    // The spinner's frames (braille glyphs, redrawn in place) show while the model thinks; the rest is the chat.
    // The spinner goes back to column 0 and clears its line before anything else is written; in the raw stream that
    // is a line break, else a frame and the tool line written over it read as one line.
    const shown = screen
      .replace(/\x1b\[\d*[GK]/g, "\n")
      .split("\n")
      .map((line) => line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ""));
    expect(shown.some((line) => /^[\u2800-\u28ff] thinking \d+s/.test(line))).toBe(true);
    const lines = shown.filter((line) => line.trim() !== "" && !/^[\u2800-\u28ff] /.test(line));
    // The run says where its logs go, once; the lifecycle itself is in that file, not on the screen.
    expect(lines, `the terminal showed: ${JSON.stringify(screen.slice(-3000))}`).toEqual([
      expect.stringMatching(/^goondan: logs go to \S+goondan\.log /),
      "→ coordinator · agents__request",
      "→ worker · slow__sleep",
      FINAL,
    ]);
    // In parts: the first part was on the screen well before the whole reply.
    expect(seen.length).toBeGreaterThan(2);
    expect(seen[0]!.length).toBeLessThan(FINAL.length);
    expect(seen.at(-1)!.at - seen[0]!.at).toBeGreaterThan(500);
  }, 60_000);

  it("prints only the whole reply on stdout when it is not a terminal", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "goondan-input-piped-"));
    defer(() => rmSync(scratch, { recursive: true, force: true }));
    const swarm = await realSwarm({ defer, streaming: true, llm: { respond: script(join(scratch, "marker")) } });
    const proc = Bun.spawn(
      [process.execPath, GOONDAN_BIN, "run", swarm.dir, "--input", "question", "--state-root", swarm.stateRoot],
      { env: { ...process.env, ...childEnv }, stdout: "pipe", stderr: "pipe", stdin: "ignore" },
    );
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stdout).text()).toBe(`${FINAL}\n`);
  }, 60_000);
});
