/**
 * Credentials reach the server: nats-server processes of the test's own on free loopback ports, one asking for
 * a user and password (with JetStream), one for a token (without JetStream). Needs the nats-server binary
 * (installed with the local NATS); skipped with a reason without it, failing under CI.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectCluster } from "../../../src/cluster/nats/connection.ts";
import { readClusterSettings } from "../../../src/cluster/nats/settings.ts";
import { SystemError } from "../../../src/shared/errors.ts";
import { killChild, useCleanups } from "../../helpers/cleanups.ts";
import { until } from "../../helpers/goondan-process.ts";

const defer = useCleanups();
const NATS_SERVER =
  Bun.which("nats-server") ?? ((await Bun.file("/usr/sbin/nats-server").exists()) ? "/usr/sbin/nats-server" : null);
if (NATS_SERVER === null) {
  if (process.env.CI === "true")
    throw new Error("nats-server is not installed: the cluster credential tests must run under CI");
  console.warn("skipping the cluster credential tests: no nats-server binary on PATH or in /usr/sbin");
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address !== "object") throw new Error("no port");
  return address.port;
}

/** A nats-server of this test's own on 127.0.0.1, stopped and its store removed after the test. */
async function natsServer(args: string[]): Promise<number> {
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), "gdn-nats-"));
  defer(() => rmSync(store, { recursive: true, force: true }));
  const server = Bun.spawn([NATS_SERVER!, "-a", "127.0.0.1", "-p", String(port), "-sd", store, ...args], {
    stdout: "ignore",
    stderr: "ignore",
  });
  defer(killChild(server));
  await until(
    async () => {
      try {
        await Bun.connect({
          hostname: "127.0.0.1",
          port,
          socket: {
            data() {},
            open(socket) {
              socket.end();
            },
          },
        });
        return true;
      } catch {
        return false;
      }
    },
    { timeoutMs: 10_000 },
  );
  return port;
}

async function connectError(url: string): Promise<SystemError> {
  const settings = readClusterSettings({ url, node: "n", env: {} })!;
  try {
    const connection = await connectCluster(settings, { connectTimeoutMs: 2000 });
    await connection.stop();
  } catch (error) {
    if (error instanceof SystemError) return error;
    throw error;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe.skipIf(NATS_SERVER === null)("connectCluster with credentials", () => {
  it("logs in with the user and password of the URL, and is refused with a wrong password it never shows", async () => {
    const port = await natsServer(["-js", "--user", "ann", "--pass", "s3cret"]);
    const connection = await connectCluster(
      readClusterSettings({ url: `nats://ann:s3cret@127.0.0.1:${port}`, node: "n", env: {} })!,
    );
    defer(() => connection.stop());
    expect(connection.state).toBe("connected");
    await connection.jsm.getAccountInfo();
    const refused = await connectError(`nats://ann:wrong-pass@127.0.0.1:${port}`);
    expect(refused.code).toBe("E_CLUSTER_UNAVAILABLE");
    expect(refused.message).toContain(`127.0.0.1:${port}`);
    expect(refused.message).not.toContain("wrong-pass");
  }, 20_000);

  it("logs in with a token, and says a server without JetStream has none", async () => {
    const port = await natsServer(["--auth", "t0ken"]);
    expect((await connectError(`nats://t0ken@127.0.0.1:${port}`)).code).toBe("E_CLUSTER_NO_JETSTREAM");
    expect((await connectError(`nats://other@127.0.0.1:${port}`)).code).toBe("E_CLUSTER_UNAVAILABLE");
  }, 20_000);
});
