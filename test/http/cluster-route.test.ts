import { describe, expect, it } from "bun:test";
import type { ClusterReloadStatus } from "../../src/cluster/reload/reload.ts";
import { createApiHandler } from "../../src/http/http-api.ts";
import { SystemError } from "../../src/shared/errors.ts";
import { apiFixture, backendOf, bodyOf, clusterPart } from "./api-fixture.ts";

describe("GET /v1/cluster", () => {
  it("answers 404 E_NOT_A_CLUSTER on an orchestrator without --cluster", async () => {
    const { request } = apiFixture();
    const response = await request("GET", "/v1/cluster");
    expect(response.status).toBe(404);
    expect((await bodyOf(response)).error.code).toBe("E_NOT_A_CLUSTER");
  });

  it("serves the node's cluster status as the backend gives it, and 503 when NATS does not answer", async () => {
    const { orchestrator } = apiFixture();
    const status: ClusterReloadStatus = {
      node: "n1",
      hash: "sha256:one",
      reports: [
        {
          node: "n2",
          generation: 2,
          status: "refused",
          hash: "sha256:two",
          announcedHash: "sha256:one",
          at: "2026-11-25T00:00:00.000Z",
        },
      ],
    };
    let fail = false;
    const handle = createApiHandler({
      backend: {
        ...backendOf(orchestrator),
        cluster: clusterPart({
          status: async () => {
            if (fail)
              throw new SystemError(
                "E_CLUSTER_UNAVAILABLE",
                "reading the reload reports: the cluster's NATS did not answer",
              );
            return status;
          },
        }),
      },
    });
    const get = () => handle(new Request("http://127.0.0.1/v1/cluster"));
    const served = await get();
    expect(served.status).toBe(200);
    expect(await bodyOf(served)).toEqual(status);
    fail = true;
    const unavailable = await get();
    expect(unavailable.status).toBe(503);
    expect((await bodyOf(unavailable)).error.code).toBe("E_CLUSTER_UNAVAILABLE");
  });
});
