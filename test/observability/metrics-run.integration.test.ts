/**
 * `GET /metrics` on a real `goondan run` (coordinator and worker children on the loopback LLM): scraped before and
 * after a turn in which the coordinator delegates to the worker, the counters move (turns, steps, tool calls,
 * model calls and tokens, durations), the gauges show both agents' processes; with a token set, the scrape needs it.
 */
import { describe, expect, it } from "bun:test";
import { lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { serveRealSwarm } from "../http/run-fixture.ts";

const defer = useCleanups();

/** The value of one series (`name{labels}`), 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((row) => row.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const delegate = { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "count the pages" } }] };

describe("GET /metrics on a real goondan run", () => {
  it("moves the counters over a delegated turn and needs the token when one is set", async () => {
    const token = "metrics-secret";
    const run = await serveRealSwarm({
      defer,
      env: { GOONDAN_API_TOKEN: token },
      llm: {
        respond: (request) => {
          if (roleOf(request) === "worker") return { text: "3 pages", usage: { promptTokens: 7, completionTokens: 3 } };
          return lastRole(request) === "tool" ? { text: "the worker counted 3 pages" } : delegate;
        },
      },
    });
    const auth = { authorization: `Bearer ${token}` };
    const refused = await fetch(`${run.base}/metrics`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("E_API_UNAUTHORIZED");

    const before = await fetch(`${run.base}/metrics`, { headers: auth });
    expect(before.status).toBe(200);
    expect(before.headers.get("content-type")).toContain("text/plain");
    const first = await before.text();
    expect(first).toContain("# TYPE goondan_turns_total counter");
    expect(sample(first, 'goondan_turns_total{agent="coordinator",status="ok"}')).toBe(0);

    const reply = await fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ input: "how many pages?", wait: true }),
    });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { response: string }).response).toBe("the worker counted 3 pages");

    const after = await (await fetch(`${run.base}/metrics`, { headers: auth })).text();
    expect(sample(after, 'goondan_turns_total{agent="coordinator",status="ok"}')).toBe(1);
    expect(sample(after, 'goondan_turns_total{agent="worker",status="ok"}')).toBe(1);
    expect(sample(after, 'goondan_steps_total{agent="coordinator",status="ok"}')).toBe(2);
    expect(sample(after, 'goondan_tool_calls_total{agent="coordinator",tool="agents__request",status="ok"}')).toBe(1);
    const workerTokens = after.split("\n").filter((row) => row.startsWith('goondan_model_tokens_total{agent="worker"'));
    expect(workerTokens.some((row) => row.includes('direction="input"') && row.endsWith(" 7"))).toBe(true);
    expect(workerTokens.some((row) => row.includes('direction="output"') && row.endsWith(" 3"))).toBe(true);
    expect(sample(after, 'goondan_turn_duration_seconds_count{agent="coordinator",status="ok"}')).toBe(1);
    expect(after).toMatch(
      /goondan_model_call_duration_seconds_count\{agent="worker",provider="[^"]+",model="[^"]+"\} 1/,
    );
    expect(after).toMatch(/goondan_processes\{kind="agent",agent="worker"\} 1/);
    expect(after).toMatch(/goondan_instances\{kind="agent",agent="worker",status="[a-z]+"\} 1/);
    expect(after).toMatch(/goondan_process_instances\{agent="worker",pid="\d+"\} 1/);
    expect(after).toMatch(/goondan_process_restarts\{kind="agent",agent="coordinator"\} 0/);
    expect(after).toContain('goondan_inbox_depth{agent="coordinator"}');
  }, 60_000);
});
