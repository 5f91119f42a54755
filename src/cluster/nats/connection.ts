/**
 * One node's connection to the cluster's NATS: connect from ClusterSettings (servers, user/password, token or
 * a credentials file), the JetStream and KV handles every other cluster part uses, the connection's state
 * (connected / reconnecting / closed) as events, and a clean stop that drains subscriptions and pending
 * publishes before closing. A first connection that fails is an E_CLUSTER_UNAVAILABLE SystemError naming the
 * servers (never the password); a server without JetStream is E_CLUSTER_NO_JETSTREAM. After the first
 * connection the client reconnects forever by itself; what a node does while it is away (stop its instances
 * before its leases lapse, refuse new events) belongs to the lease keeper and the intake.
 */
import { connect, credsAuthenticator, type NatsConnection, type Status } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { SystemError } from "../../shared/errors.ts";
import type { ClusterSettings } from "./settings.ts";

export type ClusterConnectionState = "connected" | "reconnecting" | "closed";

export interface ClusterConnectionOptions {
  /** Give up the first connection after this long. Default 5000. */
  connectTimeoutMs?: number;
  /** Ping the server this often, so a silent (partitioned) server is noticed. Default 5000. */
  pingIntervalMs?: number;
  /** Unanswered pings before the connection is called stale and re-made. Default 2. */
  maxPingsOut?: number;
  /** Wait between reconnection attempts to one server. Default 250. */
  reconnectWaitMs?: number;
  /** Longest wait for a clean drain on stop before the connection is closed anyway. Default 5000. */
  drainTimeoutMs?: number;
}

export interface ClusterConnection {
  readonly settings: ClusterSettings;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly kvm: Kvm;
  readonly state: ClusterConnectionState;
  /** Calls `listener` on every change of state; returns the unsubscribe function. */
  onState(listener: (state: ClusterConnectionState) => void): () => void;
  /** Drain subscriptions and pending publishes, then close. Safe to call twice. */
  stop(): Promise<void>;
}

export async function connectCluster(
  settings: ClusterSettings,
  options: ClusterConnectionOptions = {},
): Promise<ClusterConnection> {
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: settings.servers,
      name: `goondan ${settings.node}`,
      ...(settings.user === undefined ? {} : { user: settings.user, pass: settings.pass }),
      ...(settings.token === undefined ? {} : { token: settings.token }),
      ...(settings.creds === undefined
        ? {}
        : { authenticator: credsAuthenticator(new TextEncoder().encode(settings.creds)) }),
      ...(settings.tls ? { tls: {} } : {}),
      timeout: options.connectTimeoutMs ?? 5000,
      pingInterval: options.pingIntervalMs ?? 5000,
      maxPingOut: options.maxPingsOut ?? 2,
      reconnectTimeWait: options.reconnectWaitMs ?? 250,
      maxReconnectAttempts: -1,
      // Without it the client builds two Error objects (stack traces) for every request it sends, lease renewals
      // and acks included, to point a later timeout at its caller: 4-5% of a node's CPU per delegated job (2.64 ->
      // 2.52 ms). Our errors name the operation themselves (clusterUnavailable).
      noAsyncTraces: true,
    });
  } catch (error) {
    throw new SystemError(
      "E_CLUSTER_UNAVAILABLE",
      `cannot connect to the cluster's NATS at ${settings.servers.join(", ")}: ${(error as Error).message}`,
      {
        suggestion:
          "Check that nats-server runs with JetStream (-js) at that address and that the credentials are right.",
        cause: error,
      },
    );
  }
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc, { checkAPI: true });
  } catch (error) {
    await nc.close();
    throw new SystemError(
      "E_CLUSTER_NO_JETSTREAM",
      `the NATS server at ${settings.servers.join(", ")} has no JetStream: ${(error as Error).message}`,
      {
        suggestion: "Start nats-server with JetStream enabled (-js, or jetstream {} in its config).",
        cause: error,
      },
    );
  }
  return new NatsClusterConnection(settings, nc, jsm, options.drainTimeoutMs ?? 5000);
}

class NatsClusterConnection implements ClusterConnection {
  readonly js: JetStreamClient;
  readonly kvm: Kvm;
  private current: ClusterConnectionState = "connected";
  private readonly listeners = new Set<(state: ClusterConnectionState) => void>();
  private stopping: Promise<void> | undefined;

  constructor(
    readonly settings: ClusterSettings,
    readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
    private readonly drainTimeoutMs: number,
  ) {
    this.js = jetstream(nc);
    this.kvm = new Kvm(this.js);
    void this.followStatus();
    void nc.closed().then(() => this.enter("closed"));
  }

  get state(): ClusterConnectionState {
    return this.current;
  }

  onState(listener: (state: ClusterConnectionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): Promise<void> {
    this.stopping ??= this.drainThenClose();
    return this.stopping;
  }

  private async drainThenClose(): Promise<void> {
    if (this.nc.isClosed()) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">(
      (resolve) => (timer = setTimeout(() => resolve("timeout"), this.drainTimeoutMs)),
    );
    try {
      // Draining needs the server; a node cut off from NATS closes without it.
      if (this.current === "connected" && !this.nc.isDraining()) await Promise.race([this.nc.drain(), timedOut]);
    } catch {
      // Closed or draining already: close below.
    } finally {
      clearTimeout(timer);
    }
    if (!this.nc.isClosed()) await this.nc.close();
    await this.nc.closed();
  }

  private async followStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      const next = stateAfter(status);
      if (next !== undefined) this.enter(next);
    }
  }

  private enter(state: ClusterConnectionState): void {
    if (this.current === state || this.current === "closed") return;
    this.current = state;
    for (const listener of [...this.listeners]) listener(state);
  }
}

function stateAfter(status: Status): ClusterConnectionState | undefined {
  switch (status.type) {
    case "disconnect":
    case "reconnecting":
    case "staleConnection":
      return "reconnecting";
    case "reconnect":
      return "connected";
    case "close":
      return "closed";
    default:
      return undefined;
  }
}
