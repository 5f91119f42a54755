/**
 * The terminal chat as a person sees it, driven through tmux: a real `goondan run` with a cli Connection on the
 * loopback LLM (a streaming Model), a coordinator delegating to a worker that calls a tool. The test types a line
 * and reads the screen (capture-pane): the status line while the turn runs (held there until the test saw it), one
 * tool line per call of both agents, the reply arriving in parts as the model writes it slowly, then whole, and no
 * lifecycle log line among them (those went to the run log, which the
 * screen names). Ctrl+C ends the run with exit 0. tmux comes from Debian's packages (.ci/run installs it); without it the test is skipped, with a
 * reason, except under CI=true, where it fails.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackLlm, systemPrompt, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { GOONDAN_BIN, killProcessesWithCommandLine } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { chatEnv, delegatingModel, writeDelegatingChat } from "../fixtures/terminal/delegating-chat.ts";
import { runLogPath } from "../../src/daemon/run-log.ts";

const TMUX = Bun.which("tmux");
if (TMUX === null && process.env.CI === "true")
  throw new Error("tmux is not installed: .ci/run must apt-get install tmux for the terminal chat test");
if (TMUX === null) console.warn("skipping the tmux terminal chat test: tmux is not installed (apt-get install tmux)");

const defer = useCleanups();
const shellQuote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;
const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const REPORT_EXIT = new URL("../fixtures/terminal/report-exit.ts", import.meta.url).pathname;

describe.skipIf(TMUX === null)("the terminal chat in tmux", () => {
  it("shows a status line and the tool lines of both agents while the turn runs, then the reply, and no lifecycle log", async () => {
    const tmux = TMUX as string;
    // The coordinator's final answer waits until the test has seen the status line: no race with the screen.
    const statusSeen = Promise.withResolvers<void>();
    const script = delegatingModel({ waitSeconds: 0 });
    const llm = await startLoopbackLlm({
      respond: async (request: LoopbackRequest) => {
        const reply = script(request);
        if (!systemPrompt(request).includes("ROLE=coordinator") || reply.text === undefined) return reply;
        await Promise.race([statusSeen.promise, Bun.sleep(20_000)]);
        // Written slowly, in parts: the screen shows the reply growing.
        return { ...reply, chunkDelayMs: 250, textPieces: 8 };
      },
    });
    const dir = writeDelegatingChat({ endpoint: llm.url, streaming: true });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-tmux-"));
    const socket = join(stateRoot, "tmux.sock"); // a server of our own, removed with the state root
    const run = [process.execPath, GOONDAN_BIN, "run", dir, "--port", "0", "--state-root", join(stateRoot, "state")]
      .map(shellQuote)
      .join(" ");
    const tmuxRun = (args: string[]) => {
      const result = Bun.spawnSync([tmux, "-S", socket, ...args], {
        env: { ...process.env, ...chatEnv, TERM: "xterm-256color" },
        stdout: "pipe",
        stderr: "pipe",
      });
      if (result.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr.toString()}`);
      return result.stdout.toString();
    };
    defer(async () => {
      Bun.spawnSync([tmux, "-S", socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
      killProcessesWithCommandLine(stateRoot);
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    // Under report-exit.ts, which prints how goondan ended (and, unlike a shell, ignores the Ctrl+C meant for it).
    tmuxRun([
      "new-session",
      "-d",
      "-s",
      "chat",
      "-x",
      "160",
      "-y",
      "40",
      `exec ${shellQuote(process.execPath)} ${shellQuote(REPORT_EXIT)} ${run}`,
    ]);
    const screen = () => tmuxRun(["capture-pane", "-p", "-J", "-t", "chat"]);
    const waitFor = async (what: string, found: (text: string) => boolean): Promise<string> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const text = screen();
        if (found(text)) return text;
        if (Date.now() > deadline) throw new Error(`never saw ${what}; screen:\n${text}`);
        await Bun.sleep(50);
      }
    };

    await waitFor("the prompt", (text) => text.split("\n").some((line) => line.startsWith("> ")));
    tmuxRun(["send-keys", "-t", "chat", "hello from tmux", "Enter"]);
    // The worker has answered, and the coordinator's model is held: the status says the model is thinking.
    const running = await waitFor(
      "the status line under both tool lines",
      (text) =>
        text.includes("→ worker · wait__seconds") &&
        text.split("\n").some((line) => SPINNER_FRAME.test(line) && /thinking \d+s$/.test(line.trimEnd())),
    );
    statusSeen.resolve();
    expect(running.split("\n").filter((line) => line.startsWith("→ "))).toEqual([
      "→ coordinator · agents__request",
      "→ worker · wait__seconds",
    ]);

    // The reply streams: part of it is on the screen before the rest (and before the prompt comes back).
    const partial = await waitFor(
      "part of the streamed reply",
      (text) => text.includes("coordinator reply:") && !text.includes("the worker waited"),
    );
    expect(
      partial.split("\n").some((line) => line.startsWith("> ") && line.length > 2 && !line.includes("hello from tmux")),
    ).toBe(false);
    const answered = await waitFor(
      "the reply",
      (text) => text.includes("coordinator reply:") && text.trimEnd().endsWith(">"),
    );
    const lines = answered.split("\n").filter((line) => line.trim() !== "");
    expect(lines[0]).toBe(
      `goondan: logs go to ${runLogPath(join(stateRoot, "state"))} (warnings and errors show here; --verbose shows all)`,
    );
    expect(lines.slice(1)).toEqual([
      "> hello from tmux",
      "→ coordinator · agents__request",
      "→ worker · wait__seconds",
      expect.stringMatching(/^coordinator reply: .*the worker waited/),
      "> ",
    ]);
    // The lifecycle went to the run log instead.
    const log = readFileSync(runLogPath(join(stateRoot, "state")), "utf8");
    for (const lifecycle of ["agent host ready", "shared agent process spawned", "turn ended"])
      expect(log).toContain(lifecycle);

    tmuxRun(["send-keys", "-t", "chat", "C-c"]);
    const ended = await waitFor("goondan ending", (text) => /(exited|killed) \S+/.test(text));
    expect(/(exited|killed) \S+/.exec(ended)?.[0]).toBe("exited 0");
  }, 60_000);
});
