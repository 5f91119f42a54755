/**
 * `goondan instance delete` of an instance whose turn waits for approval, with real processes: a coordinator's
 * request to a worker is held for approval, goondan stops, the worker's instance is deleted by the CLI, and the next
 * `goondan run` neither offers the approval nor runs the worker's call on a fresh instance; the coordinator's
 * resumed request gets the worker's one answer, E_INSTANCE_DELETED, as its tool result, and its event is answered.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";
import { messageText } from "../helpers/loopback-llm.ts";
import { approvalsWorld, pendingApprovals, send } from "./approvals-fixture.ts";

const defer = useCleanups();

describe("deleting an instance that waits (real processes)", () => {
  it("answers the deleted worker's held request E_INSTANCE_DELETED to its coordinator after the restart, runs nothing, and offers no approval", async () => {
    const world = await approvalsWorld(defer);
    let run = await world.start();
    const held = await send(run.base, { agent: "coordinator", input: "job3", instanceKey: "c3" });
    expect(held.status).toBe("awaiting_approval");
    expect((await pendingApprovals(run.base)).map((row) => `${row.agent}/${row.instanceKey}`)).toEqual([
      "assistant/for-job3",
    ]);
    run.proc.kill("SIGTERM");
    expect(await run.proc.exited).toBe(0);

    const cli = Bun.spawn(
      [
        process.execPath,
        GOONDAN_BIN,
        "instance",
        "delete",
        "assistant",
        "for-job3",
        "--state-root",
        world.stateRoot,
        "--port",
        "1",
      ],
      { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
    );
    const [out, err, code] = await Promise.all([
      new Response(cli.stdout).text(),
      new Response(cli.stderr).text(),
      cli.exited,
    ]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toContain("answered 1 waiting event(s) E_INSTANCE_DELETED; denied 1 pending approval(s)");

    run = await world.start();
    expect(await pendingApprovals(run.base)).toEqual([]);
    // The coordinator's turn resumes; its request reattaches to the worker's stored answer instead of running again.
    const told = await until(
      () =>
        world.llm.requests.find(
          (request) =>
            messageText(request.body.messages[0]).includes("ROLE=coordinator") &&
            request.body.messages.at(-1)?.role === "tool" &&
            messageText(request.body.messages.at(-1)).includes("E_INSTANCE_DELETED"),
        ),
      { timeoutMs: 20_000 },
    );
    expect(messageText(told.body.messages.at(-1))).toContain("was deleted");
    const answered = await until(
      async () => {
        const state = (await (await fetch(`${run.base}/v1/events/${held.eventId}`)).json()) as { state: string };
        return state.state === "awaiting_approval" || state.state === "accepted" || state.state === "running"
          ? undefined
          : state;
      },
      { timeoutMs: 20_000 },
    );
    expect(answered.state).toBe("ok");
    expect(world.effects()).toEqual([]);
    // The worker was not run again on a fresh instance.
    expect(
      world.llm.requests.filter(
        (request) =>
          messageText(request.body.messages[0]).includes("ROLE=assistant") &&
          messageText(request.body.messages.at(-1)).includes("job3"),
      ).length,
    ).toBe(1);
  }, 90_000);
});
