/**
 * The typed client (src/client/) against a real `goondan run` (real agent children, loopback model): its watch
 * resumes across an orchestrator restart on the same state root with no gap and no double (every runtime event the
 * store holds, in order, each once, the ids strictly increasing), and its other methods read the API's answers as
 * typed values: send (waited and streamed), events.get, processes, instances, approvals, and refusals as
 * GoondanApiError with the API's code.
 */
import { describe, expect, it } from "bun:test";
import { createClient, GoondanApiError, type StreamEvent, type WatchEvent } from "../../src/client/index.ts";
import { childEnv } from "../fixtures/orchestrator/real-swarm.ts";
import { killChild, useCleanups } from "../helpers/cleanups.ts";
import { startGoondanRun, until } from "../helpers/goondan-process.ts";
import { realSwarm, startSwarmRun } from "../http/run-fixture.ts";

const defer = useCleanups();

describe("the typed client's watch", () => {
  it("resumes across an orchestrator restart with the last event id: every stored event once, in order", async () => {
    const swarm = await realSwarm({ defer, llm: { respond: () => ({ text: "noted" }) } });
    const start = (port: number) => startSwarmRun(swarm, { defer, port });
    const first = await start(0);
    const client = createClient({ baseUrl: first.base });
    const seen: Array<Extract<WatchEvent, { type: "runtime" }>> = [];
    let opens = 0;
    const abort = new AbortController();
    defer(() => abort.abort());
    const watching = (async () => {
      const watch = client.watch({
        after: 0,
        signal: abort.signal,
        retryMs: 100,
        maxRetryMs: 400,
        onOpen: () => opens++,
      });
      for await (const item of watch) if (item.type === "runtime") seen.push(item);
    })();
    const completed = (eventId: string) => () =>
      seen.some((item) => item.event.type === "turn.completed" && item.event.eventId === eventId);

    const one = await client.send({ input: "one", instanceKey: "w" });
    expect(one.status).toBe("ok");
    await until(completed(one.eventId));

    // The orchestrator goes away (a drain, as `goondan run` on SIGTERM) and comes back on the same state root and port.
    first.proc.kill("SIGTERM");
    expect(await first.proc.exited).toBe(0);
    const second = await start(first.port);
    // Sent at once: the watch is likely still waiting to reconnect, and must find these from the store.
    const two = await client.send({ input: "two", instanceKey: "w" });
    const three = await client.send({ input: "three", instanceKey: "w" });
    await until(completed(two.eventId), { timeoutMs: 20_000 });
    await until(completed(three.eventId), { timeoutMs: 20_000 });
    expect(opens).toBeGreaterThanOrEqual(2);

    const stored = (await (await fetch(`${second.base}/v1/runtime-events`)).json()) as { events: unknown[] };
    const ids = seen.map((item) => Number(item.id));
    expect(ids.every((id, index) => index === 0 || id > (ids[index - 1] as number))).toBe(true);
    expect(seen.map((item) => item.event)).toEqual(stored.events as never);
    abort.abort();
    await watching;
  });
});

describe("the typed client's calls", () => {
  it("sends and streams an event, reads its state, the tables and the approvals, and throws refusals with their code", async () => {
    const swarm = await realSwarm({ defer, streaming: true, llm: { respond: () => ({ text: "streamed reply" }) } });
    const run = await startGoondanRun({
      args: [swarm.dir, "--port", "0", "--state-root", swarm.stateRoot],
      env: { ...childEnv, GOONDAN_LOG_LEVEL: "info", GOONDAN_API_TOKEN: "s3cret" },
      onSpawn: (proc) => defer(killChild(proc)),
    });
    const client = createClient({ baseUrl: run.base, token: "s3cret" });

    const outcome = await client.send({ input: "hello", instanceKey: "calls" });
    expect(outcome).toMatchObject({ status: "ok", response: "streamed reply", instanceKey: "calls" });

    const streamed: StreamEvent[] = [];
    for await (const event of client.send({ input: "again", instanceKey: "calls" }, { stream: true }))
      streamed.push(event);
    const done = streamed.at(-1);
    expect(done?.type).toBe("done");
    if (done?.type !== "done") throw new Error("no done");
    expect(done.data.response).toBe("streamed reply");
    const text = streamed.flatMap((event) => (event.type === "delta" ? [event.data.text] : [])).join("");
    expect(text).toBe("streamed reply");

    expect(await client.events.get(done.data.eventId)).toMatchObject({ state: "ok", response: "streamed reply" });
    const accepted = await client.accept({ input: "later", instanceKey: "calls" });
    expect(accepted.instanceKey).toBe("calls");
    expect((await client.instances()).some((row) => row.instanceKey === "calls")).toBe(true);
    expect((await client.processes()).some((row) => row.kind === "agent" && row.instanceKey === "calls")).toBe(true);
    expect(await client.approvals.list()).toEqual([]);

    const refused = await client.approvals.decide("apv_nope", { decision: "approve" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GoondanApiError);
    expect((refused as GoondanApiError).code).toBe("E_APPROVAL_NOT_FOUND");
    expect((refused as GoondanApiError).status).toBe(404);
    const unauthorized = await createClient({ baseUrl: run.base })
      .instances()
      .catch((error: unknown) => error);
    expect((unauthorized as GoondanApiError).status).toBe(401);
    const badResume = client.watch({ lastEventId: "not-a-number" });
    const thrown = await (async () => {
      for await (const _ of badResume) return undefined;
    })().catch((error: unknown) => error);
    expect((thrown as GoondanApiError).code).toBe("E_API_BAD_REQUEST");
  });
});
