/**
 * A loopback TCP proxy between a client and a server (NATS) that a test can cut: `stop()` closes the listener
 * and every open connection (the client sees its server go away), `freeze()` keeps connections open but drops
 * every byte both ways (a partition: the client notices only by its own pings and timeouts), and `start()`
 * heals either: it listens again on the same port, or ends the frozen connections (their streams lost bytes)
 * and forwards again, so the client's reconnect gets through. Listens on 127.0.0.1 only.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export interface TcpProxy {
  /** `127.0.0.1:<port>` */
  readonly address: string;
  readonly port: number;
  /** Connections accepted since the proxy was made. */
  readonly accepted: number;
  stop(): Promise<void>;
  freeze(): void;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(options: { targetHost: string; targetPort: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let frozen = false;
  let accepted = 0;
  let server: Server | undefined;
  let port = 0;

  const listen = async (): Promise<void> => {
    frozen = false;
    const next = createServer((client) => {
      accepted += 1;
      const upstream = connect({ host: options.targetHost, port: options.targetPort });
      const pair: [Socket, Socket] = [client, upstream];
      pairs.add(pair);
      const forward = (from: Socket, to: Socket) =>
        from.on("data", (chunk) => {
          if (!frozen) to.write(chunk);
        });
      forward(client, upstream);
      forward(upstream, client);
      const end = () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on("close", end).on("error", end);
      upstream.on("close", end).on("error", end);
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen({ host: "127.0.0.1", port }, () => resolve());
    });
    server = next;
    const address = next.address();
    if (address !== null && typeof address === "object") port = address.port;
  };

  const stop = async (): Promise<void> => {
    const current = server;
    server = undefined;
    for (const [client, upstream] of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  await listen();
  return {
    get address() {
      return `127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    get accepted() {
      return accepted;
    },
    stop,
    freeze: () => {
      frozen = true;
    },
    start: async () => {
      if (server === undefined) return listen();
      // The bytes dropped while frozen broke every stream that was open: end those, so clients reconnect.
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      frozen = false;
    },
    close: stop,
  };
}
