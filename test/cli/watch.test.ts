/**
 * `goondan watch` against a real `goondan run` (real agent children, loopback model): a person sees one line per
 * runtime event as it happens, filtered by agent and type prefix (`--json` prints the events themselves), and Ctrl+C
 * ends it with 130; with no orchestrator it says so (exit 1). The SSE parsing is the typed client's (test/client/).
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";
import { lastUserText } from "../helpers/loopback-llm.ts";
import { serveRealSwarm } from "../http/run-fixture.ts";

const defer = useCleanups();

function startWatch(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, GOONDAN_BIN, "watch", ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  defer(killChild(proc));
  const lines: string[] = [];
  void (async () => {
    let buffer = "";
    for await (const chunk of proc.stdout) {
      buffer += new TextDecoder().decode(chunk);
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        lines.push(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
      }
    }
  })();
  return { proc, lines };
}

describe("goondan watch", () => {
  it("prints the filtered runtime events of a running swarm as they happen, and Ctrl+C ends it with 130", async () => {
    const dir = mkdtempSync(join(tmpdir(), "goondan-watch-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const marker = join(dir, "marker");
    const run = await serveRealSwarm({
      defer,
      llm: {
        respond: (request) => {
          if (roleOf(request) === "worker")
            return lastRole(request) === "tool"
              ? { text: "worker done" }
              : { toolCalls: [{ name: "slow__sleep", args: { ms: 10, marker } }] };
          return lastRole(request) === "user"
            ? { toolCalls: [{ name: "agents__request", args: { target: "worker", input: lastUserText(request) } }] }
            : { text: "all done" };
        },
      },
    });
    const text = startWatch(["--port", String(run.port), "--agent", "worker", "--type", "tool."]);
    const json = startWatch(["--port", String(run.port), "--json", "--type", "turn.completed"]);
    await Bun.sleep(300); // both connected (an event before that would only be missed, not wrong)
    const reply = await fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "go", wait: true }),
    });
    expect(((await reply.json()) as { status: string }).status).toBe("ok");
    await until(() => text.lines.length >= 2 && json.lines.length >= 2, { timeoutMs: 10_000 });
    expect(text.lines[0]).toMatch(/ worker\/\S+ tool\.called turn=\S+ step=\d+ tool=slow__sleep/);
    expect(text.lines[1]).toMatch(/ worker\/\S+ tool\.completed .*tool=slow__sleep/);
    expect(text.lines.every((line) => line.includes(" worker/") && / tool\./.test(line))).toBe(true);
    const events = json.lines.map((line) => JSON.parse(line) as { type: string; agent: string });
    expect(events.map((event) => `${event.agent} ${event.type}`).sort()).toEqual([
      "coordinator turn.completed",
      "worker turn.completed",
    ]);
    text.proc.kill("SIGINT");
    expect(await text.proc.exited).toBe(130);
    json.proc.kill("SIGTERM");
    expect(await json.proc.exited).toBe(0);
  }, 60_000);

  it("says no orchestrator answers when none runs", async () => {
    const proc = Bun.spawn([process.execPath, GOONDAN_BIN, "watch", "--port", "1"], {
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("no goondan orchestrator answers at http://127.0.0.1:1");
  });
});
