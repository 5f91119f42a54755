import { afterEach, describe, expect, it } from "bun:test";
import { existsSync } from "node:fs";
import { main } from "../../src/cli/main.ts";
import { emptyInstanceState } from "../../src/protocol/instance-state.ts";
import { storedInstanceState } from "../helpers/stored-state.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { ApprovalRequest } from "../../src/protocol/approval.ts";
import type { TurnOutcome } from "../../src/protocol/turn-outcome.ts";
import {
  appendToStore,
  capture,
  cleanUpOperatorFixtures,
  deadPid,
  fakeApi,
  seedInstance,
  servers,
  stateRoot,
  writeOwner,
} from "./support/operator-fixture.ts";

afterEach(cleanUpOperatorFixtures);

describe("goondan instance", () => {
  it("lists the instances on disk with their swarm, committed messages and last change", async () => {
    const root = stateRoot();
    await seedInstance(root, { agent: "planner", instanceKey: "user/42", messages: 3 });
    const { io, out } = capture();
    expect(await main(["instance", "list", "--state-root", root, "--format", "json"], io)).toBe(0);
    const listed = JSON.parse(out.stdout).instances;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ swarm: "team", agent: "planner", instanceKey: "user/42", messages: 3 });
    const text = capture();
    expect(await main(["instance", "list", "--state-root", root], text.io)).toBe(0);
    expect(text.out.stdout).toContain("planner  user/42");
  });

  it("deletes an instance's files when no orchestrator runs it", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => Response.json({ instances: [] }));
    const { io, out } = capture();
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], io)).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
    expect(
      await storedInstanceState({ stateRoot: root, swarm: "team", agent: "planner", instanceKey: "team" }),
    ).toEqual(emptyInstanceState());
    expect(out.stdout).toContain("deleted team/planner/team");
  });

  it("answers the instance's waiting events E_INSTANCE_DELETED and denies its pending approvals before deleting it, leaving other instances' alone", async () => {
    const root = stateRoot();
    await seedInstance(root, { agent: "planner", instanceKey: "team" });
    const ref = { swarm: "team", agent: "planner", instanceKey: "team" };
    const other = { swarm: "team", agent: "planner", instanceKey: "other" };
    const agentEvent = (id: string, instanceKey: string) =>
      ({
        id,
        type: "agent.request",
        agent: "planner",
        instanceKey,
        input: "job",
        source: { kind: "api", name: "test" },
        callChain: [],
        metadata: {},
        createdAt: new Date(0).toISOString(),
      }) as unknown as AgentEvent;
    const approval = (id: string, eventId: string, instanceKey: string): ApprovalRequest => ({
      id,
      agent: "planner",
      instanceKey,
      eventId,
      turnId: `turn_${eventId}`,
      traceId: "t",
      toolCallId: `call_${id}`,
      toolName: "bash__run",
      arguments: {},
      requestedAt: 1,
    });
    const held = (eventId: string, instanceKey: string, approvalId: string): TurnOutcome => ({
      status: "awaiting_approval",
      agent: "planner",
      instanceKey,
      eventId,
      turnId: `turn_${eventId}`,
      response: "",
      finishReason: "stop",
      approvalIds: [approvalId],
    });
    await appendToStore(root, async (store) => {
      for (const [id, instance] of [
        ["evt_waiting", ref],
        ["evt_held", ref],
        ["evt_done", ref],
        ["evt_other", other],
        ["evt_other_held", other],
      ] as const)
        await store.accept("team", agentEvent(id, instance.instanceKey), 1);
      await store.commit(
        ref,
        { approvals: { requested: [approval("appr_1", "evt_held", "team")] } },
        held("evt_held", "team", "appr_1"),
      );
      await store.commit(
        other,
        { approvals: { requested: [approval("appr_2", "evt_other_held", "other")] } },
        held("evt_other_held", "other", "appr_2"),
      );
      await store.answer("team", "evt_done", {
        status: "ok",
        agent: "planner",
        instanceKey: "team",
        eventId: "evt_done",
        turnId: "turn_done",
        response: "done",
        finishReason: "stop",
      });
    });
    const port = fakeApi(() => Response.json({ instances: [] }));
    const { io, out } = capture();
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], io)).toBe(0);
    expect(out.stdout).toContain("answered 2 waiting event(s) E_INSTANCE_DELETED; denied 1 pending approval(s)");
    await appendToStore(root, async (store) => {
      for (const id of ["evt_waiting", "evt_held"]) {
        expect((await store.inboxRecord("team", id))?.outcome).toMatchObject({
          status: "error",
          eventId: id,
          error: { code: "E_INSTANCE_DELETED" },
        });
      }
      expect((await store.inboxRecord("team", "evt_done"))?.outcome).toMatchObject({ status: "ok", response: "done" });
      // Nothing of it resumes at the next start; the other instance's events and approval are as they were.
      expect((await store.unanswered("team")).map((record) => record.event.id)).toEqual(["evt_other"]);
      expect((await store.approvals({ swarm: "team", pending: true })).map((pending) => pending.id)).toEqual([
        "appr_2",
      ]);
      expect((await store.approvals({ swarm: "team", id: "appr_1" }))[0]?.decision).toMatchObject({
        decision: "deny",
        decidedBy: "goondan",
      });
      expect((await store.inboxRecord("team", "evt_other_held"))?.outcome?.status).toBe("awaiting_approval");
    });
  });

  it("refuses to delete or archive in a cluster node's state root (the state log would bring it back), and does once a single host has run there", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team", messages: 30 });
    await appendToStore(root, (store) =>
      store.markClusterNode({ node: "n1", swarm: "team", since: "2026-11-26T00:00:00.000Z" }),
    );
    const port = fakeApi(() => Response.json({ instances: [] }));
    for (const action of ["delete", "archive"]) {
      const { io, out } = capture();
      expect(await main(["instance", action, "planner", "team", "--state-root", root, "--port", port], io)).toBe(1);
      expect(out.stderr).toContain("E_INSTANCE_CLUSTER_STATE");
      expect(out.stderr).toContain("cluster node n1 (swarm team");
      expect(out.stderr).toContain("goondan restart --agent planner --instance team --fresh");
    }
    expect(existsSync(paths.root)).toBe(true);
    expect(
      (await storedInstanceState({ stateRoot: root, swarm: "team", agent: "planner", instanceKey: "team" })).messages,
    ).toHaveLength(30);
    await appendToStore(root, (store) => store.markClusterNode(undefined));
    expect(
      await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], capture().io),
    ).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
  });

  it("deletes when no orchestrator answers and no live one owns the state root (a stale owner file is ignored)", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => new Response("")); // grab a port, then free it
    servers.splice(0).forEach((server) => server.stop(true));
    writeOwner(root, { pid: await deadPid(), port: Number(port), host: "127.0.0.1" });
    expect(
      await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], capture().io),
    ).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
  });

  it("refuses to delete while a live orchestrator owns the state root and its API does not answer", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => new Response(""));
    servers.splice(0).forEach((server) => server.stop(true));
    writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
    const { io, out } = capture();
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", "1"], io)).toBe(1);
    expect(existsSync(paths.root)).toBe(true);
    expect(out.stderr).toContain("E_STATE_ROOT_OWNED");
  });

  it("refuses to delete when the owning orchestrator's API answers 401 or 403", async () => {
    for (const status of [401, 403]) {
      const root = stateRoot();
      const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
      const port = fakeApi(() => Response.json({ error: { code: "UNAUTHORIZED", message: "no" } }, { status }));
      writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
      const { io, out } = capture({ GOONDAN_API_TOKEN: "wrong" });
      expect(await main(["instance", "delete", "planner", "team", "--state-root", root], io)).toBe(1);
      expect(existsSync(paths.root)).toBe(true);
      expect(out.stderr).toContain("E_STATE_ROOT_OWNED");
    }
  });

  it("deletes when the owning orchestrator, asked at the address it recorded with the token, says the instance is not live", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    let authorization = "";
    const port = fakeApi((request) => {
      authorization = request.headers.get("authorization") ?? "";
      return Response.json({ instances: [{ agent: "planner", instanceKey: "team", status: "terminated" }] });
    });
    writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
    expect(
      await main(
        ["instance", "delete", "planner", "team", "--state-root", root, "--port", "1"],
        capture({ GOONDAN_API_TOKEN: "tok" }).io,
      ),
    ).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
    expect(authorization).toBe("Bearer tok");
  });

  it("refuses to delete an instance the running orchestrator has live", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    let authorization = "";
    const port = fakeApi((request) => {
      authorization = request.headers.get("authorization") ?? "";
      return Response.json({ instances: [{ agent: "planner", instanceKey: "team", status: "idle", pid: 1234 }] });
    });
    const { io, out } = capture({ GOONDAN_API_TOKEN: "tok" });
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], io)).toBe(1);
    expect(existsSync(paths.root)).toBe(true);
    expect(out.stderr).toContain("is running");
    expect(out.stderr).toContain("goondan restart --agent planner --instance team --fresh");
    expect(authorization).toBe("Bearer tok");
  });

  it("exits 1 for an unknown instance and 2 for a missing argument or unknown action", async () => {
    const root = stateRoot();
    expect(await main(["instance", "delete", "ghost", "x", "--state-root", root, "--port", "1"], capture().io)).toBe(1);
    expect(await main(["instance", "delete", "ghost", "--state-root", root], capture().io)).toBe(2);
    expect(await main(["instance", "prune", "--state-root", root], capture().io)).toBe(2);
  });
});
