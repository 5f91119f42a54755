import { describe, expect, it } from "bun:test";
import { BundleAgreement } from "../../../src/cluster/reload/bundle-agreement.ts";
import { ClusterReload, scopeRequests } from "../../../src/cluster/reload/reload.ts";
import type { RestartRequest } from "../../../src/orchestrator/reload/restart-coordinator.ts";
import type { RestartAnswer } from "../../../src/protocol/restart-answer.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { until } from "../../helpers/goondan-process.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();

describe("scopeRequests", () => {
  it("asks for everything when the scope names no agent", () => {
    expect(scopeRequests({})).toEqual([{}]);
    expect(scopeRequests({ fresh: true })).toEqual([{}, { fresh: true }]);
  });

  it("asks for each named agent and instance, fresh only where the scope clears", () => {
    const scope = {
      agents: ["worker"],
      instances: [{ agent: "coordinator", instanceKey: "c-1" }],
      freshAgents: ["worker"],
      freshInstances: [{ agent: "coordinator", instanceKey: "c-1" }],
    };
    expect(scopeRequests(scope)).toEqual([
      { agent: "worker" },
      { agent: "coordinator", instanceKey: "c-1" },
      { agent: "worker", fresh: true },
      { agent: "coordinator", instanceKey: "c-1", fresh: true },
    ]);
  });

  it("drops what is not a name or an instance (a scope read off the wire)", () => {
    expect(scopeRequests({ agents: ["worker", 7], instances: [{ agent: "x" }, null] } as never)).toEqual([
      { agent: "worker" },
    ]);
  });
});

interface TestNode {
  node: string;
  reload: ClusterReload;
  requests: RestartRequest[];
  runs: string[];
  /** Each `drains` call: the code it drains for, or undefined when it takes instances again. */
  drains: Array<string | undefined>;
}

async function cluster() {
  const swarm = testSwarm("reload");
  removeSwarmAfter(defer, swarm);
  const agreement = await BundleAgreement.open({ connection: await connectTest(defer, { node: "setup" }), swarm });
  await agreement.join({ node: "n1", hash: "sha256:one", members: [] });
  const start = async (
    node: string,
    options: { hash: () => string; answer?: RestartAnswer; joinedAt?: number },
  ): Promise<TestNode> => {
    const requests: RestartRequest[] = [];
    const runs: string[] = [];
    const drains: Array<string | undefined> = [];
    const reload = await ClusterReload.start({
      agreement: await BundleAgreement.open({ connection: await connectTest(defer, { node }), swarm }),
      node,
      bundleDir: "/unused",
      joinedAt: options.joinedAt ?? (await agreement.current())?.generation ?? 0,
      restarts: {
        request: async (request) => {
          requests.push(request);
          return options.answer ?? { accepted: true, issues: [] };
        },
      },
      runs: (hash) => runs.push(hash),
      drains: (draining) => drains.push(draining?.code),
      logger: silentLogger(),
      hash: options.hash,
    });
    defer(() => reload.stop());
    return { node, reload, requests, runs, drains };
  };
  return { agreement, start };
}

describe.skipIf(!natsAvailable)("ClusterReload on the local NATS", () => {
  it("relays an announced reload to a node with the same bundle, exactly as its scope says, and reports it reloaded", async () => {
    const { agreement, start } = await cluster();
    let onDisk = "sha256:one";
    const asking = await start("n1", { hash: () => onDisk });
    const other = await start("n2", { hash: () => onDisk });
    onDisk = "sha256:two";
    const announced = await asking.reload.announce({
      reasons: ["POST /v1/restart"],
      scope: { agents: ["worker"], freshAgents: ["worker"] },
    });
    expect(announced.generation).toBe(1);
    await until(() => other.requests.length === 2, { timeoutMs: 5000 });
    expect(other.requests).toEqual([
      { agent: "worker", reason: "cluster reload 1 asked of n1: POST /v1/restart", relayed: true },
      { agent: "worker", fresh: true, reason: "cluster reload 1 asked of n1: POST /v1/restart", relayed: true },
    ]);
    await other.reload.idle();
    await Promise.all([asking.reload.reloaded(), other.reload.reloaded()]);
    expect(asking.requests).toEqual([]); // its own announcement is not applied again
    expect(other.runs).toEqual(["sha256:two"]);
    expect(
      (await agreement.reports()).map((report) => [report.node, report.generation, report.status, report.hash]),
    ).toEqual([
      ["n1", 1, "reloaded", "sha256:two"],
      ["n2", 1, "reloaded", "sha256:two"],
    ]);
  });

  it("keeps a node whose bundle differs on its configuration and reports the mismatch, naming both hashes", async () => {
    const { agreement, start } = await cluster();
    const asking = await start("n1", { hash: () => "sha256:two" });
    const stale = await start("n2", { hash: () => "sha256:one" });
    await asking.reload.announce({ reasons: ["POST /v1/restart"], scope: {} });
    const report = await until(async () => (await agreement.reports()).find((each) => each.node === "n2"), {
      timeoutMs: 5000,
    });
    expect(stale.requests).toEqual([]);
    expect(stale.runs).toEqual([]);
    expect(report).toMatchObject({
      status: "refused",
      hash: "sha256:one",
      announcedHash: "sha256:two",
      error: { code: "E_CLUSTER_BUNDLE_MISMATCH" },
    });
    expect(report.error?.message).toContain("sha256:one");
    expect(report.error?.message).toContain("sha256:two");
    const status = await stale.reload.status();
    expect(status).toMatchObject({
      node: "n2",
      hash: "sha256:one",
      cluster: { hash: "sha256:two", generation: 1, reload: { by: "n1" } },
      draining: { code: "E_CLUSTER_BUNDLE_MISMATCH", generation: 1 },
    });
    expect(stale.drains).toEqual(["E_CLUSTER_BUNDLE_MISMATCH"]);
    expect(asking.drains).toEqual([]);
  });

  it("drains a node that refused until it takes a later announcement, and only then (a reload no announcement asked for does not end it)", async () => {
    const { start } = await cluster();
    let onDisk = "sha256:other";
    const asking = await start("n1", { hash: () => "sha256:two" });
    const stale = await start("n2", { hash: () => onDisk });
    await asking.reload.announce({ reasons: ["first"], scope: {} });
    await until(() => stale.drains.length === 1, { timeoutMs: 5000 });
    await stale.reload.reloaded(); // a reload of its own (a watched file changed): the cluster asked for nothing
    expect(stale.drains).toEqual(["E_CLUSTER_BUNDLE_MISMATCH"]);
    expect((await stale.reload.status()).draining?.generation).toBe(1);
    onDisk = "sha256:two";
    await asking.reload.announce({ reasons: ["second"], scope: {} });
    await until(() => stale.requests.length === 1, { timeoutMs: 5000 });
    await stale.reload.idle();
    await stale.reload.reloaded();
    expect(stale.drains).toEqual(["E_CLUSTER_BUNDLE_MISMATCH", undefined]);
    expect((await stale.reload.status()).draining).toBeUndefined();
  });

  it("reports a node whose copy is invalid as refused, with its issues", async () => {
    const { agreement, start } = await cluster();
    const asking = await start("n1", { hash: () => "sha256:one" });
    const invalid = await start("n2", {
      hash: () => "sha256:one",
      answer: {
        accepted: false,
        issues: [
          { code: "E_CONFIG_REF_NOT_FOUND", path: "goondan.yaml#2.spec.tools[0]", message: "Tool/echo not found" },
        ],
      },
    });
    await asking.reload.announce({ reasons: ["self-restart"], scope: {} });
    const report = await until(async () => (await agreement.reports()).find((each) => each.node === "n2"), {
      timeoutMs: 5000,
    });
    expect(report).toMatchObject({ status: "refused", error: { code: "E_CONFIG_INVALID" } });
    expect(report.error?.message).toContain("E_CONFIG_REF_NOT_FOUND");
    expect((await invalid.reload.status()).draining?.code).toBe("E_CONFIG_INVALID");
  });

  it("never applies an announcement made before the node joined", async () => {
    const { agreement, start } = await cluster();
    const asking = await start("n1", { hash: () => "sha256:one" });
    await asking.reload.announce({ reasons: ["before"], scope: {} });
    const late = await start("n3", { hash: () => "sha256:one" });
    await asking.reload.announce({ reasons: ["after"], scope: {} });
    await until(() => late.requests.length === 1, { timeoutMs: 5000 });
    await Bun.sleep(200);
    expect(late.requests.map((request) => request.reason)).toEqual(["cluster reload 2 asked of n1: after"]);
    expect((await agreement.current())?.generation).toBe(2);
  });
});
