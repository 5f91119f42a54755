/**
 * `POST /v1/approvals/:id` with `stream: true` over real processes (the approvals fixture on the loopback model): the
 * answer is a stream of the decided approval, the resumed turn's tool call (the held one, now run: started with its
 * args, ended ok with its result) and `done` with the turn's outcome, the same the stored event answers; a second
 * decision is still a JSON `409 E_APPROVAL_DECIDED`, not a stream.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { sseReader } from "../helpers/sse-reader.ts";
import { approvalsWorld, send } from "../orchestrator/approvals-fixture.ts";

const defer = useCleanups();

describe("deciding an approval with stream: true, real processes", () => {
  it("streams the decided approval, the resumed turn's tool call and done with its outcome", async () => {
    const world = await approvalsWorld(defer);
    const { base } = await world.start();
    const held = await send(base, { agent: "assistant", instanceKey: "s1", input: "id-7" });
    expect(held.status).toBe("awaiting_approval");
    const id = held.approvalIds![0]!;
    const decide = () =>
      fetch(`${base}/v1/approvals/${id}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ decision: "approve", approver: "tester", stream: true }),
      });
    const response = await decide();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const sse = sseReader(response);
    const rest = await sse.rest();
    const frames = sse.seen;
    expect(frames[0]).toMatchObject({ event: "approval", data: { id, decision: "approve", decidedBy: "tester" } });
    const tools = frames.filter((frame) => frame.event === "tool").map((frame) => frame.data);
    expect(tools.map((tool) => `${tool.phase} ${tool.agent} ${tool.name}`)).toEqual([
      "started assistant effects__append",
      "ended assistant effects__append",
    ]);
    expect(tools[0].args).toEqual({ id: "id-7" });
    expect(tools[1]).toMatchObject({ status: "ok", result: { status: "ok", output: { appended: "id-7" } } });
    expect(tools[1].callId).toBe(tools[0].callId);
    const done = rest.at(-1)!;
    expect(done.event).toBe("done");
    expect(done.data).toMatchObject({ status: "ok", agent: "assistant", instanceKey: "s1", eventId: held.eventId });
    expect(done.data.response).toContain("tool said:");
    const { state, ...stored } = (await (await fetch(`${base}/v1/events/${held.eventId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(state).toBe("ok");
    expect(done.data).toEqual(stored);
    expect(world.effects()).toEqual(["id-7"]);

    const again = await decide();
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("E_APPROVAL_DECIDED");
  }, 60_000);
});
