import { describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BundleAgreement, type BundleRecord } from "../../../src/cluster/reload/bundle-agreement.ts";
import { bundleHash } from "../../../src/cluster/reload/bundle-hash.ts";
import type { NodeInfo } from "../../../src/cluster/members/node-membership.ts";
import { ConfigError } from "../../../src/shared/errors.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";
import { until } from "../../helpers/goondan-process.ts";

const defer = useCleanups();

function bundleDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "gdn-bundle-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const BUNDLE = {
  "goondan.yaml": "kind: Swarm\n",
  "tools/echo.ts": "export const handlers = {};\n",
  "prompts/coder.md": "You code.\n",
};

describe("bundleHash", () => {
  it("is the same for the same files at another path, and changes with any file's bytes or name", () => {
    const hash = bundleHash(bundleDir(BUNDLE));
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(bundleHash(bundleDir(BUNDLE))).toBe(hash);
    expect(bundleHash(bundleDir({ ...BUNDLE, "prompts/coder.md": "You code well.\n" }))).not.toBe(hash);
    expect(bundleHash(bundleDir({ ...BUNDLE, "tools/echo2.ts": BUNDLE["tools/echo.ts"] }))).not.toBe(hash);
  });

  it("leaves out state and build directories, other bundles and symlinks", () => {
    const dir = bundleDir({
      ...BUNDLE,
      ".goondan/state.json": "{}",
      "node_modules/x/index.js": "",
      "dist/out.js": "",
      "nested/goondan.yaml": "kind: Swarm\n",
    });
    symlinkSync("/etc/hostname", join(dir, "link"));
    expect(bundleHash(dir)).toBe(bundleHash(bundleDir(BUNDLE)));
  });
});

const member = (node: string, bundleHash: string): NodeInfo => ({
  node,
  bundleHash,
  maxProcesses: 8,
  live: 0,
  startedAt: "",
  heartbeatAt: 0,
});

async function openAgreement() {
  const swarm = testSwarm("bundle");
  removeSwarmAfter(defer, swarm);
  const connection = await connectTest(defer);
  return { swarm, connection, agreement: await BundleAgreement.open({ connection, swarm }) };
}

describe.skipIf(!natsAvailable)("BundleAgreement on the local NATS", () => {
  it("makes the first node's bundle the cluster's and lets a node with the same bundle join", async () => {
    const { agreement } = await openAgreement();
    expect(await agreement.current()).toBeUndefined();
    expect(await agreement.join({ node: "a", hash: "sha256:one", members: [member("a", "sha256:one")] })).toMatchObject(
      { hash: "sha256:one", node: "a" },
    );
    expect(
      await agreement.join({
        node: "b",
        hash: "sha256:one",
        members: [member("a", "sha256:one"), member("b", "sha256:one")],
      }),
    ).toMatchObject({ hash: "sha256:one", node: "a" });
  });

  it("refuses a node whose bundle differs while a live node runs the cluster's, naming both", async () => {
    const { agreement } = await openAgreement();
    await agreement.join({ node: "a", hash: "sha256:one", members: [member("a", "sha256:one")] });
    let error: unknown;
    try {
      await agreement.join({
        node: "b",
        hash: "sha256:two",
        members: [member("a", "sha256:one"), member("b", "sha256:two")],
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("E_CLUSTER_BUNDLE_MISMATCH");
    expect((error as ConfigError).message).toContain("sha256:one");
    expect((error as ConfigError).message).toContain("sha256:two");
    expect((await agreement.current())?.hash).toBe("sha256:one");
  });

  it("takes a new bundle when no live node runs another (the whole cluster restarted with it)", async () => {
    const { agreement } = await openAgreement();
    await agreement.join({ node: "a", hash: "sha256:one", members: [member("a", "sha256:one")] });
    expect(
      (
        await agreement.join({
          node: "a",
          hash: "sha256:two",
          members: [member("a", "sha256:two"), member("b", "sha256:two")],
        })
      ).hash,
    ).toBe("sha256:two");
    expect((await agreement.current())?.hash).toBe("sha256:two");
  });

  it("announces a reload that every node's watch sees, after the record it started from", async () => {
    const { swarm, agreement } = await openAgreement();
    const joined = await agreement.join({ node: "a", hash: "sha256:one", members: [] });
    expect(joined.generation).toBe(0);
    const seen: Record<string, BundleRecord[]> = { a: [], b: [], c: [] };
    for (const node of Object.keys(seen)) {
      const connection = await connectTest(defer, { node });
      const watch = await (await BundleAgreement.open({ connection, swarm })).watch((record) =>
        seen[node]!.push(record),
      );
      defer(() => watch.stop());
    }
    const announced = await agreement.announce({
      node: "b",
      hash: "sha256:two",
      reasons: ["POST /v1/restart"],
      scope: { agents: ["worker"] },
    });
    expect(announced).toMatchObject({
      hash: "sha256:two",
      node: "b",
      generation: 1,
      reload: { by: "b", reasons: ["POST /v1/restart"], scope: { agents: ["worker"] } },
    });
    await until(() => Object.values(seen).every((records) => records.length === 2));
    for (const records of Object.values(seen)) expect(records).toEqual([joined, announced]);
  });

  it("gives every announcement its own generation, even when nodes announce at once, and a join keeps it", async () => {
    const { swarm, agreement } = await openAgreement();
    await agreement.join({ node: "a", hash: "sha256:one", members: [] });
    const others = await Promise.all(
      ["b", "c"].map(async (node) => BundleAgreement.open({ connection: await connectTest(defer, { node }), swarm })),
    );
    const announced = await Promise.all(
      [agreement, ...others].map((each, index) =>
        each.announce({ node: `n${index}`, hash: "sha256:one", reasons: [], scope: {} }),
      ),
    );
    expect(announced.map((record) => record.generation).sort()).toEqual([1, 2, 3]);
    const rejoined = await agreement.join({ node: "d", hash: "sha256:one", members: [] });
    expect(rejoined.generation).toBe(3);
    expect(rejoined.reload?.by).toBeDefined(); // the cluster's record is unchanged: same hash, nothing written
  });

  it("keeps each node's last reload report, one per node", async () => {
    const { agreement } = await openAgreement();
    const report = (node: string, generation: number, status: "reloaded" | "refused") => ({
      node,
      generation,
      status,
      hash: "sha256:one",
      announcedHash: "sha256:one",
      at: new Date(0).toISOString(),
    });
    await agreement.report(report("n1", 1, "reloaded"));
    await agreement.report(report("n2", 1, "refused"));
    await agreement.report(report("n1", 2, "reloaded"));
    expect(await agreement.reports()).toEqual([report("n1", 2, "reloaded"), report("n2", 1, "refused")]);
  });
});
