/**
 * Approvals of tool calls with real processes (`goondan run`, Bun agent children, the loopback LLM): a held call
 * stops the turn with `awaiting_approval` and runs nothing; approve runs the tool once and the same turn goes on
 * with the real result; deny and timeout give the model E_TOOL_DENIED / E_TOOL_APPROVAL_TIMEOUT with the reason;
 * a second decision is 409 E_APPROVAL_DECIDED.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";
import { messageText } from "../helpers/loopback-llm.ts";
import { approvalsWorld, decide, pendingApprovals, send } from "./approvals-fixture.ts";

const defer = useCleanups();

describe("approvals of tool calls (real processes)", () => {
  it("holds a call until it is approved, then runs it once and continues the same turn with its real result", async () => {
    const world = await approvalsWorld(defer);
    const { base, proc } = await world.start();
    const held = await send(base, { input: "a1", instanceKey: "k1" });
    expect(held.status).toBe("awaiting_approval");
    expect(held.finishReason).toBe("awaiting_approval");
    expect(held.approvalIds?.length).toBe(1);
    const id = held.approvalIds?.[0] as string;
    const listed = await pendingApprovals(base);
    expect(listed.map((row) => [row.id, row.agent, row.instanceKey, row.toolName, row.arguments])).toEqual([
      [id, "assistant", "k1", "effects__append", { id: "a1" }],
    ]);
    expect(world.effects()).toEqual([]);

    const approved = await decide(base, id, { decision: "approve", wait: true });
    expect(approved.status).toBe(200);
    expect(approved.body.approval?.decision).toBe("approve");
    expect(approved.body.outcome?.status).toBe("ok");
    expect(approved.body.outcome?.turnId).toBe(held.turnId);
    expect(approved.body.outcome?.response).toContain('"appended":"a1"');
    expect(world.effects()).toEqual(["a1"]);
    // The model read the result as the answer to its own call (a tool message), not as a later note.
    const last = world.llm.requests.at(-1);
    expect(last?.body.messages.at(-1)?.role).toBe("tool");
    expect(await pendingApprovals(base)).toEqual([]);

    const again = await decide(base, id, { decision: "deny" });
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe("E_APPROVAL_DECIDED");
    expect(world.effects()).toEqual(["a1"]);

    const events = (await (await fetch(`${base}/v1/instances/assistant/k1/events`)).json()) as {
      events: { type: string; data?: Record<string, unknown> }[];
    };
    const types = events.events.map((event) => event.type);
    expect(types).toContain("approval.requested");
    expect(types).toContain("approval.decided");
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 60_000);

  it("tells the model a denied call was denied, with the reason, and the turn goes on", async () => {
    const world = await approvalsWorld(defer);
    const { base } = await world.start();
    const held = await send(base, { input: "d1", instanceKey: "k2" });
    expect(held.status).toBe("awaiting_approval");
    const denied = await decide(base, held.approvalIds?.[0] as string, {
      decision: "deny",
      reason: "not on a Friday",
      wait: true,
    });
    expect(denied.status).toBe(200);
    expect(denied.body.outcome?.status).toBe("ok");
    expect(denied.body.outcome?.response).toContain("E_TOOL_DENIED");
    expect(denied.body.outcome?.response).toContain("not on a Friday");
    expect(world.effects()).toEqual([]);
    const unknown = await decide(base, "appr_nope", { decision: "approve" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe("E_APPROVAL_NOT_FOUND");

    // A streaming client's final `done` is the awaiting_approval answer, and GET /v1/events/:id says where it stands.
    const streamed = await fetch(`${base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "d2", instanceKey: "k2s", stream: true }),
    });
    const text = await streamed.text();
    const done = text.split("\n\n").find((frame) => frame.includes("event: done")) ?? "";
    const answer = JSON.parse(done.slice(done.indexOf("data: ") + 6)) as {
      status: string;
      eventId: string;
      approvalIds: string[];
    };
    expect(answer.status).toBe("awaiting_approval");
    expect(answer.approvalIds.length).toBe(1);
    const state = (await (await fetch(`${base}/v1/events/${answer.eventId}`)).json()) as { state: string };
    expect(state.state).toBe("awaiting_approval");
    await decide(base, answer.approvalIds[0] as string, { decision: "deny", wait: true });
    expect(((await (await fetch(`${base}/v1/events/${answer.eventId}`)).json()) as { state: string }).state).toBe("ok");
  }, 60_000);

  it("answers a call nobody decided in time with E_TOOL_APPROVAL_TIMEOUT and finishes the turn", async () => {
    const world = await approvalsWorld(defer);
    const { base } = await world.start();
    const held = await send(base, { agent: "hasty", input: "t1", instanceKey: "k3" });
    expect(held.status).toBe("awaiting_approval");
    const row = (await pendingApprovals(base))[0];
    expect(row?.expiresAt).toBeDefined();
    const finalRequest = await until(
      () =>
        world.llm.requests.find((request) =>
          messageText(request.body.messages.at(-1)).includes("E_TOOL_APPROVAL_TIMEOUT"),
        ),
      { timeoutMs: 15_000 },
    );
    expect(finalRequest.body.messages.at(-1)?.role).toBe("tool");
    expect(await pendingApprovals(base)).toEqual([]);
    expect(world.effects()).toEqual([]);
    const late = await decide(base, held.approvalIds?.[0] as string, { decision: "approve" });
    expect(late.status).toBe(409);
  }, 60_000);
});

describe("goondan approvals / goondan approve (real processes)", () => {
  const cli = async (args: string[]) => {
    const proc = Bun.spawn([process.execPath, GOONDAN_BIN, ...args], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, GOONDAN_API_TOKEN: "" },
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { stdout, stderr, code };
  };

  it("lists the held calls and decides them through the HTTP API, once", async () => {
    const world = await approvalsWorld(defer);
    const { base } = await world.start();
    const port = new URL(base).port;
    const first = await send(base, { input: "c1", instanceKey: "cli1" });
    const second = await send(base, { input: "c2", instanceKey: "cli2" });
    const listed = await cli(["approvals", "--port", port, "--format", "json"]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((row) => row.id).sort()).toEqual(
      [...(first.approvalIds ?? []), ...(second.approvalIds ?? [])].sort(),
    );
    const table = await cli(["approvals", "--port", port]);
    expect(table.stdout).toContain("effects__append");

    const approved = await cli(["approve", first.approvalIds?.[0] as string, "--port", port]);
    expect(approved.code).toBe(0);
    const denied = await cli([
      "approve",
      second.approvalIds?.[0] as string,
      "--deny",
      "--reason",
      "no thanks",
      "--port",
      port,
    ]);
    expect(denied.code).toBe(0);
    await until(
      () =>
        world.effects().length === 1 &&
        world.llm.requests.some((request) => messageText(request.body.messages.at(-1)).includes("no thanks")),
      { timeoutMs: 15_000 },
    );
    expect(world.effects()).toEqual(["c1"]);
    const twice = await cli(["approve", first.approvalIds?.[0] as string, "--port", port]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("E_APPROVAL_DECIDED");
    expect((await cli(["approvals", "--port", port])).stdout).toContain("no tool calls wait for approval");
  }, 60_000);
});
