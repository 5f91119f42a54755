/**
 * Where the cluster's NATS is and how to log in, read once from the flag or the environment and checked before
 * anything connects: `--cluster` or GOONDAN_CLUSTER_URL (`nats://[user:pass@]host[:port]`, several servers
 * separated by commas, `tls://` for TLS), a NATS credentials file (`.creds`, JWT + NKey seed) named by
 * GOONDAN_CLUSTER_CREDS, the node name from `--node` or GOONDAN_NODE (default: the host name), and when an
 * instance's state log is compacted (GOONDAN_CLUSTER_SNAPSHOT_RECORDS, _BYTES: state-log-snapshot.ts). A bad value
 * is a UsageError naming where it came from and what was expected; the password never appears in a message.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { UsageError } from "../../shared/errors.ts";
import type { CompactionSettings } from "../../store/nats/index.ts";

export const CLUSTER_URL_ENV = "GOONDAN_CLUSTER_URL";
export const CLUSTER_CREDS_ENV = "GOONDAN_CLUSTER_CREDS";
export const CLUSTER_NODE_ENV = "GOONDAN_NODE";

const DEFAULT_PORT = 4222;

export interface ClusterSettings {
  /** `host:port` of each server, without credentials (safe to log). */
  servers: string[];
  tls: boolean;
  user?: string;
  pass?: string;
  /** A token given as the URL's user part with no password (`nats://TOKEN@host`). */
  token?: string;
  /** The contents of the NATS credentials file, when one is named. */
  creds?: string;
  credsFile?: string;
  node: string;
  /** When a snapshot of an instance's state log is due (default DEFAULT_COMPACTION). */
  compaction?: CompactionSettings;
}

export interface ReadClusterSettingsOptions {
  /** `--cluster`; wins over the environment. */
  url?: string;
  /** `--node`; wins over the environment. */
  node?: string;
  /** Default: process.env. */
  env?: Record<string, string | undefined>;
}

/** Undefined when no cluster is asked for (no flag, no GOONDAN_CLUSTER_URL): the single-host mode. */
export function readClusterSettings(options: ReadClusterSettingsOptions = {}): ClusterSettings | undefined {
  const env = options.env ?? process.env;
  const fromFlag = options.url !== undefined && options.url !== "";
  const url = fromFlag ? options.url : env[CLUSTER_URL_ENV];
  if (url === undefined || url === "") return undefined;
  const origin = fromFlag ? "--cluster" : CLUSTER_URL_ENV;
  const settings: ClusterSettings = {
    ...parseServers(url, origin),
    node: nodeName(options.node ?? env[CLUSTER_NODE_ENV], options.node !== undefined ? "--node" : CLUSTER_NODE_ENV),
    compaction: natsStore().readCompactionSettings(env),
  };
  const credsFile = env[CLUSTER_CREDS_ENV];
  if (credsFile !== undefined && credsFile !== "") {
    let creds: string;
    try {
      creds = readFileSync(credsFile, "utf8");
    } catch (error) {
      throw new UsageError(
        "E_CLUSTER_CREDS_UNREADABLE",
        `${CLUSTER_CREDS_ENV}: cannot read the NATS credentials file ${credsFile}: ${(error as Error).message}`,
        {
          suggestion: "Point it at a readable .creds file (the output of `nsc generate creds`), or unset it.",
        },
      );
    }
    if (!creds.includes("BEGIN NATS USER JWT") || !creds.includes("BEGIN USER NKEY SEED")) {
      throw new UsageError(
        "E_CLUSTER_CREDS_UNREADABLE",
        `${CLUSTER_CREDS_ENV}: ${credsFile} is not a NATS credentials file: expected a USER JWT and a USER NKEY SEED block`,
      );
    }
    settings.creds = creds;
    settings.credsFile = credsFile;
  }
  return settings;
}

function parseServers(
  text: string,
  origin: string,
): Pick<ClusterSettings, "servers" | "tls" | "user" | "pass" | "token"> {
  const servers: string[] = [];
  const schemes = new Set<string>();
  let user: string | undefined;
  let pass: string | undefined;
  for (const raw of text.split(",").map((part) => part.trim())) {
    const invalid = (expected: string) =>
      new UsageError(
        "E_CLUSTER_URL_INVALID",
        `${origin}: ${redactUrl(raw)} is not a NATS server URL: expected ${expected}`,
        {
          suggestion: "Write nats://HOST:PORT (or nats://USER:PASS@HOST:PORT, tls://…), several separated by commas.",
        },
      );
    if (raw === "") throw invalid("a URL between the commas");
    let parsed: URL;
    try {
      parsed = new URL(raw.includes("://") ? raw : `nats://${raw}`);
    } catch {
      throw invalid("nats://HOST[:PORT]");
    }
    const scheme = parsed.protocol.replace(/:$/, "");
    if (scheme !== "nats" && scheme !== "tls") throw invalid(`the scheme nats:// or tls://, got ${scheme}://`);
    if (parsed.hostname === "") throw invalid("a host name");
    if (parsed.pathname !== "" && parsed.pathname !== "/") throw invalid("no path after the host");
    schemes.add(scheme);
    servers.push(`${parsed.hostname}:${parsed.port === "" ? DEFAULT_PORT : parsed.port}`);
    if (parsed.username !== "") {
      const thisUser = decodeURIComponent(parsed.username);
      const thisPass = parsed.password === "" ? undefined : decodeURIComponent(parsed.password);
      if (user !== undefined && (user !== thisUser || pass !== thisPass))
        throw invalid("the same credentials in every URL");
      user = thisUser;
      pass = thisPass;
    }
  }
  if (schemes.size > 1) {
    throw new UsageError(
      "E_CLUSTER_URL_INVALID",
      `${origin}: mixes nats:// and tls:// servers: expected one scheme for all of them`,
    );
  }
  const tls = schemes.has("tls");
  if (user === undefined) return { servers, tls };
  // nats://TOKEN@host: a user part alone is a token, as in the NATS tools.
  return pass === undefined ? { servers, tls, token: user } : { servers, tls, user, pass };
}

function nodeName(given: string | undefined, origin: string): string {
  if (given === undefined || given === "") return hostname();
  if (given.length > 64 || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(given)) {
    throw new UsageError(
      "E_CLUSTER_NODE_NAME_INVALID",
      `${origin}: node name ${JSON.stringify(given.slice(0, 80))} is not valid: expected 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  return given;
}

/** A server URL with its password (or token) replaced, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(
    /\/\/([^@/]*)@/,
    (_whole, userInfo: string) => `//${userInfo.includes(":") ? `${userInfo.split(":")[0]}:***` : "***"}@`,
  );
}

/**
 * The JetStream backend, loaded when a cluster is asked for: a lone host never loads the NATS client (a tenth of its
 * start). `require` keeps this function synchronous; Bun loads the ES module the same way.
 */
function natsStore(): typeof import("../../store/nats/index.ts") {
  return require("../../store/nats/index.ts");
}
