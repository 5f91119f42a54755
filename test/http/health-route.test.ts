/** `GET /healthz` on a cluster node: 200 either way, `status` and the node's `cluster` standing say whether it has NATS. */
import { describe, expect, it } from "bun:test";
import type { ClusterStatus } from "../../src/cluster/instances/outage-recovery.ts";
import { healthRoutes } from "../../src/http/routes/health.ts";
import { clusterPart } from "./api-fixture.ts";

const standing = (connection: ClusterStatus["connection"]): ClusterStatus => ({
  node: "n1",
  connection,
  member: connection === "connected",
  instances: 0,
  awaitingReclaim: 2,
});

describe("GET /healthz", () => {
  it("answers ok without a cluster", async () => {
    const response = await healthRoutes().request("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("says disconnected, still 200, while a cluster node has lost NATS", async () => {
    const response = await healthRoutes({ cluster: clusterPart({ standing: () => standing("reconnecting") }) }).request(
      "/healthz",
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "disconnected", cluster: standing("reconnecting") });
  });

  it("says ok with the node's standing while connected", async () => {
    const response = await healthRoutes({ cluster: clusterPart({ standing: () => standing("connected") }) }).request(
      "/healthz",
    );
    expect(await response.json()).toEqual({ status: "ok", cluster: standing("connected") });
  });
});
