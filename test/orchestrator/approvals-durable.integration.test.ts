/**
 * Approvals are durable, with real processes: a held call survives an orchestrator SIGKILL and a reaped agent
 * child (nothing runs meanwhile, nothing is lost, and the decision resumes the same turn), a deadline that passed
 * while goondan was down is applied when it starts again, and a call held inside a delegated worker's turn answers
 * the entry agent's `wait` with awaiting_approval; once approved the worker finishes and so does the entry's turn.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { messageText } from "../helpers/loopback-llm.ts";
import { approvalsWorld, decide, pendingApprovals, send } from "./approvals-fixture.ts";

const defer = useCleanups();

async function agentPids(base: string, agent: string, instanceKey: string): Promise<number[]> {
  const rows = (
    (await (await fetch(`${base}/v1/processes`)).json()) as {
      processes: { kind: string; agent: string; instanceKey: string; pid: number | null }[];
    }
  ).processes;
  return rows
    .filter((row) => row.kind === "agent" && row.agent === agent && row.instanceKey === instanceKey && row.pid !== null)
    .map((row) => row.pid as number);
}

describe("durable approvals (real processes)", () => {
  it("keeps a held call across a SIGKILL of the orchestrator; the restarted one applies the decision once", async () => {
    const world = await approvalsWorld(defer);
    let run = await world.start();
    const held = await send(run.base, { input: "r1", instanceKey: "k1" });
    expect(held.status).toBe("awaiting_approval");
    run.proc.kill("SIGKILL");
    await run.proc.exited;

    run = await world.start();
    const listed = await pendingApprovals(run.base);
    expect(listed.map((row) => row.id)).toEqual(held.approvalIds ?? []);
    expect(world.effects()).toEqual([]);
    // Another message to the same instance waits behind the held turn rather than running beside it.
    const later = fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "r2", instanceKey: "k1", wait: true, timeoutMs: 30_000 }),
    });
    await Bun.sleep(500);
    expect(world.effects()).toEqual([]);
    const approved = await decide(run.base, listed[0]?.id as string, { decision: "approve", wait: true });
    expect(approved.body.outcome?.status).toBe("ok");
    expect(approved.body.outcome?.turnId).toBe(held.turnId);
    expect(world.effects()).toEqual(["r1"]);
    // The later message's own call is held in its turn, after the first turn ended.
    const second = (await (await later).json()) as { status: string; approvalIds?: string[] };
    expect(second.status).toBe("awaiting_approval");
    expect((await decide(run.base, listed[0]?.id as string, { decision: "approve" })).status).toBe(409);
    run.proc.kill("SIGTERM");
    await run.proc.exited;
    run = await world.start();
    expect((await decide(run.base, listed[0]?.id as string, { decision: "deny" })).status).toBe(409);
    expect(world.effects()).toEqual(["r1"]);
  }, 90_000);

  it("applies a deadline that passed while the orchestrator was down when it starts again", async () => {
    const world = await approvalsWorld(defer);
    let run = await world.start();
    const held = await send(run.base, { agent: "hasty", input: "late1", instanceKey: "k2" });
    expect(held.status).toBe("awaiting_approval");
    run.proc.kill("SIGKILL");
    await run.proc.exited;
    await Bun.sleep(1500);
    run = await world.start();
    const told = await until(
      () =>
        world.llm.requests.find((request) =>
          messageText(request.body.messages.at(-1)).includes("E_TOOL_APPROVAL_TIMEOUT"),
        ),
      { timeoutMs: 15_000 },
    );
    expect(told.body.messages.at(-1)?.role).toBe("tool");
    expect(await pendingApprovals(run.base)).toEqual([]);
    expect(world.effects()).toEqual([]);
  }, 90_000);

  it("resumes a turn whose agent child was reaped while it waited", async () => {
    const world = await approvalsWorld(defer);
    const run = await world.start();
    const held = await send(run.base, { input: "idle1", instanceKey: "k3" });
    expect(held.status).toBe("awaiting_approval");
    expect((await agentPids(run.base, "assistant", "k3")).length).toBe(1);
    // idleSeconds is 2 in the fixture: the waiting instance's child is stopped.
    await until(async () => (await agentPids(run.base, "assistant", "k3")).length === 0, { timeoutMs: 15_000 });
    const approved = await decide(run.base, held.approvalIds?.[0] as string, { decision: "approve", wait: true });
    expect(approved.body.outcome?.status).toBe("ok");
    expect(approved.body.outcome?.response).toContain('"appended":"idle1"');
    expect(world.effects()).toEqual(["idle1"]);
  }, 60_000);

  it("resumes a turn whose agent child was SIGKILLed while it waited", async () => {
    const world = await approvalsWorld(defer);
    const run = await world.start();
    const held = await send(run.base, { input: "kill1", instanceKey: "k4" });
    expect(held.status).toBe("awaiting_approval");
    const [pid] = await agentPids(run.base, "assistant", "k4");
    expect(pid).toBeNumber();
    process.kill(pid as number, "SIGKILL");
    await until(async () => !(await agentPids(run.base, "assistant", "k4")).includes(pid as number), {
      timeoutMs: 10_000,
    });
    const approved = await decide(run.base, held.approvalIds?.[0] as string, { decision: "approve", wait: true });
    expect(approved.body.outcome?.status).toBe("ok");
    expect(world.effects()).toEqual(["kill1"]);
  }, 60_000);

  it("answers the entry agent's wait with awaiting_approval for a call held in a delegated worker's turn, and completes both after approve", async () => {
    const world = await approvalsWorld(defer);
    const run = await world.start();
    const held = await send(run.base, { agent: "coordinator", input: "job1", instanceKey: "c1" });
    expect(held.status).toBe("awaiting_approval");
    expect(held.agent).toBe("coordinator");
    expect(held.approvalIds?.length).toBe(1);
    const [row] = await pendingApprovals(run.base);
    expect(row?.agent).toBe("assistant");
    expect(row?.instanceKey).toBe("for-job1");
    const approved = await decide(run.base, held.approvalIds?.[0] as string, { decision: "approve", wait: true });
    expect(approved.body.outcome?.status).toBe("ok");
    expect(world.effects()).toEqual(["job1"]);
    // The coordinator's turn got the worker's reply and finished.
    const done = await until(
      () =>
        world.llm.requests.find(
          (request) =>
            messageText(request.body.messages[0]).includes("ROLE=coordinator") &&
            request.body.messages.at(-1)?.role === "tool",
        ),
      { timeoutMs: 15_000 },
    );
    expect(messageText(done.body.messages.at(-1))).toContain("appended");
    const events = (await (await fetch(`${run.base}/v1/instances/coordinator/c1/events`)).json()) as {
      events: { type: string }[];
    };
    await until(
      async () =>
        (
          (await (await fetch(`${run.base}/v1/instances/coordinator/c1/events`)).json()) as {
            events: { type: string }[];
          }
        ).events.some((event) => event.type === "turn.completed"),
      { timeoutMs: 15_000 },
    );
    expect(events.events.length).toBeGreaterThan(0);
  }, 60_000);

  it("completes the entry agent's turn after a restart when the delegated worker's held call is approved", async () => {
    const world = await approvalsWorld(defer);
    let run = await world.start();
    const held = await send(run.base, { agent: "coordinator", input: "job2", instanceKey: "c2" });
    expect(held.status).toBe("awaiting_approval");
    run.proc.kill("SIGKILL");
    await run.proc.exited;
    run = await world.start();
    const [row] = await pendingApprovals(run.base);
    expect(row?.id).toBe(held.approvalIds?.[0]);
    // The coordinator's turn is redelivered and runs its agents__request again (a second tool.called), reattaching
    // to the request whose turn still waits, before the decision.
    const calls = async () =>
      (
        (await (await fetch(`${run.base}/v1/instances/coordinator/c2/events`)).json()) as {
          events?: { type: string }[];
        }
      ).events?.filter((event) => event.type === "tool.called").length ?? 0;
    await until(async () => (await calls()) >= 2, { timeoutMs: 15_000 });
    await Bun.sleep(300);
    const approved = await decide(run.base, row?.id as string, { decision: "approve", wait: true });
    expect(approved.body.outcome?.status).toBe("ok");
    expect(world.effects()).toEqual(["job2"]);
    const state = await until(
      async () => {
        const answer = (await (await fetch(`${run.base}/v1/events/${held.eventId}`)).json()) as {
          state: string;
          response?: string;
        };
        return answer.state === "ok" ? answer : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(state.response).toContain("appended");
  }, 90_000);
});
