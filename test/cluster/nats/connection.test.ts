import { describe, expect, it } from "bun:test";
import { connectCluster, type ClusterConnectionState } from "../../../src/cluster/nats/connection.ts";
import { readClusterSettings } from "../../../src/cluster/nats/settings.ts";
import { SystemError } from "../../../src/shared/errors.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, NATS_URL, natsAvailable } from "../../helpers/nats.ts";
import { until } from "../../helpers/goondan-process.ts";
import { startTcpProxy } from "../../helpers/tcp-proxy.ts";

const defer = useCleanups();
const target = new URL(NATS_URL);

describe.skipIf(!natsAvailable)("connectCluster on the local NATS", () => {
  it("connects with JetStream and stops cleanly, draining first", async () => {
    const connection = await connectTest(defer);
    expect(connection.state).toBe("connected");
    const states: ClusterConnectionState[] = [];
    connection.onState((state) => states.push(state));
    const account = await connection.jsm.getAccountInfo();
    expect(account.limits).toBeDefined();
    await connection.stop();
    await connection.stop();
    expect(connection.state).toBe("closed");
    expect(connection.nc.isClosed()).toBe(true);
    expect(states).toEqual(["closed"]);
  });

  it("reports reconnecting when its server goes away and connected when it is back", async () => {
    const proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 4222) });
    defer(() => proxy.close());
    const connection = await connectTest(defer, { url: `nats://${proxy.address}`, reconnectWaitMs: 50 });
    const states: ClusterConnectionState[] = [];
    connection.onState((state) => states.push(state));
    await proxy.stop();
    await until(() => connection.state === "reconnecting");
    await proxy.start();
    await until(() => connection.state === "connected");
    expect(states).toEqual(["reconnecting", "connected"]);
    // And it works again.
    await connection.jsm.getAccountInfo();
  }, 20_000);

  it("fails the first connection with E_CLUSTER_UNAVAILABLE naming the server, never the password", async () => {
    // A listener that is closed at once: nothing answers on its port.
    const proxy = await startTcpProxy({ targetHost: "127.0.0.1", targetPort: 9 });
    const address = proxy.address;
    await proxy.close();
    const settings = readClusterSettings({ url: `nats://ann:hunter2@${address}`, node: "n", env: {} })!;
    let error: unknown;
    try {
      await connectCluster(settings, { connectTimeoutMs: 1000 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).code).toBe("E_CLUSTER_UNAVAILABLE");
    expect((error as SystemError).message).toContain(address);
    expect((error as SystemError).message).not.toContain("hunter2");
  }, 10_000);
});
