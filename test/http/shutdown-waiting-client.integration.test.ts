/**
 * A client waiting on `"wait": true` when `goondan run` stops: the turn cannot end within the grace period, so the
 * client gets a JSON 503 E_ORCHESTRATOR_STOPPED naming its event (not a socket hang-up), and the next run on the same
 * state root answers the event.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { startGoondanRun, until } from "../helpers/goondan-process.ts";
import { childEnv } from "../fixtures/orchestrator/real-swarm.ts";
import { realSwarm } from "./run-fixture.ts";

const defer = useCleanups();

async function run(dir: string, stateRoot: string) {
  const daemon = await startGoondanRun({
    args: [dir, "--port", "0", "--state-root", stateRoot],
    env: { ...childEnv, GOONDAN_LOG_LEVEL: "info" },
    onSpawn: (proc) => defer(killChild(proc)),
  });
  return daemon;
}

describe("a client waiting when goondan run stops", () => {
  it("gets a JSON 503 E_ORCHESTRATOR_STOPPED with its eventId, and the next run answers the event", async () => {
    let calls = 0;
    const swarm = await realSwarm({
      defer,
      llm: {
        respond: () => (++calls === 1 ? { text: "too late", delayMs: 30_000 } : { text: "answered after the restart" }),
      },
    });
    const first = await run(swarm.dir, swarm.stateRoot);
    const waiting = fetch(`${first.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "take your time", wait: true }),
    });
    await until(() => swarm.llm.requests.length === 1);
    first.proc.kill("SIGTERM");
    const response = await waiting;
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string }; eventId: string };
    expect(body.error.code).toBe("E_ORCHESTRATOR_STOPPED");
    expect(body.eventId).toMatch(/^evt_/);
    expect(await first.proc.exited).toBe(0);

    const second = await run(swarm.dir, swarm.stateRoot);
    const answered = await until(async () => {
      const events = (await (await fetch(`${second.base}/v1/instances/coordinator/duo/events`)).json()) as {
        events?: { type: string; eventId?: string }[];
      };
      return events.events?.some((event) => event.type === "turn.completed" && event.eventId === body.eventId) === true;
    });
    expect(answered).toBe(true);
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  }, 30_000);
});
