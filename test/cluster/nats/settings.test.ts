import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readClusterSettings, redactUrl } from "../../../src/cluster/nats/settings.ts";
import { UsageError } from "../../../src/shared/errors.ts";

function thrown(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error("expected a UsageError");
}

describe("readClusterSettings", () => {
  it("is undefined without --cluster or GOONDAN_CLUSTER_URL: the single-host mode", () => {
    expect(readClusterSettings({ env: {} })).toBeUndefined();
  });

  it("reads servers, user and password from the URL, the port defaulting to 4222", () => {
    const settings = readClusterSettings({
      url: "nats://ann:s%40cret@10.0.0.5,nats://ann:s%40cret@10.0.0.6:4333",
      node: "n1",
      env: {},
    });
    expect(settings).toMatchObject({
      servers: ["10.0.0.5:4222", "10.0.0.6:4333"],
      user: "ann",
      pass: "s@cret",
      tls: false,
      node: "n1",
    });
  });

  it("reads a user part alone as a token, and tls:// as TLS", () => {
    expect(readClusterSettings({ url: "tls://t0ken@nats.example:4443", node: "n", env: {} })).toMatchObject({
      servers: ["nats.example:4443"],
      token: "t0ken",
      tls: true,
    });
  });

  it("takes the URL and node name from GOONDAN_CLUSTER_URL and GOONDAN_NODE; the flags win", () => {
    const env = { GOONDAN_CLUSTER_URL: "nats://127.0.0.1:4222", GOONDAN_NODE: "from-env" };
    expect(readClusterSettings({ env })).toMatchObject({ servers: ["127.0.0.1:4222"], node: "from-env" });
    expect(readClusterSettings({ env, url: "nats://127.0.0.2:4222", node: "from-flag" })).toMatchObject({
      servers: ["127.0.0.2:4222"],
      node: "from-flag",
    });
  });

  it("reads a NATS credentials file named by GOONDAN_CLUSTER_CREDS", () => {
    const dir = mkdtempSync(join(tmpdir(), "gdn-creds-"));
    const file = join(dir, "user.creds");
    writeFileSync(
      file,
      "-----BEGIN NATS USER JWT-----\neyJ0\n------END NATS USER JWT------\n-----BEGIN USER NKEY SEED-----\nSUAM\n------END USER NKEY SEED------\n",
    );
    expect(
      readClusterSettings({ url: "nats://127.0.0.1", node: "n", env: { GOONDAN_CLUSTER_CREDS: file } })?.credsFile,
    ).toBe(file);
    expect(
      thrown(() =>
        readClusterSettings({
          url: "nats://127.0.0.1",
          node: "n",
          env: { GOONDAN_CLUSTER_CREDS: join(dir, "missing.creds") },
        }),
      ).code,
    ).toBe("E_CLUSTER_CREDS_UNREADABLE");
    writeFileSync(file, "not creds");
    expect(
      thrown(() => readClusterSettings({ url: "nats://127.0.0.1", node: "n", env: { GOONDAN_CLUSTER_CREDS: file } }))
        .code,
    ).toBe("E_CLUSTER_CREDS_UNREADABLE");
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a URL that is not a NATS server, naming where it came from and never the password", () => {
    for (const url of [
      "http://host:4222",
      "nats://",
      "nats://host:4222/path",
      "nats://a:1,,nats://b:2",
      "nats://a:1,tls://b:2",
    ]) {
      const error = thrown(() => readClusterSettings({ url, node: "n", env: {} }));
      expect(error.code).toBe("E_CLUSTER_URL_INVALID");
      expect(error.message).toContain("--cluster");
    }
    const error = thrown(() =>
      readClusterSettings({ env: { GOONDAN_CLUSTER_URL: "ftp://ann:hunter2@host" }, node: "n" }),
    );
    expect(error.message).toContain("GOONDAN_CLUSTER_URL");
    expect(error.message).not.toContain("hunter2");
  });

  it("refuses a node name that starts with a symbol or is longer than 64 characters", () => {
    expect(thrown(() => readClusterSettings({ url: "nats://h", node: "-x", env: {} })).code).toBe(
      "E_CLUSTER_NODE_NAME_INVALID",
    );
    expect(thrown(() => readClusterSettings({ url: "nats://h", node: "n".repeat(65), env: {} })).code).toBe(
      "E_CLUSTER_NODE_NAME_INVALID",
    );
  });

  it("reads the state log's compaction thresholds, refusing one that is not a whole number before anything connects", () => {
    expect(
      readClusterSettings({ url: "nats://h", node: "n", env: { GOONDAN_CLUSTER_SNAPSHOT_RECORDS: "250" } })?.compaction,
    ).toEqual({ records: 250, bytes: 4 * 1024 * 1024 });
    expect(
      thrown(() => readClusterSettings({ url: "nats://h", node: "n", env: { GOONDAN_CLUSTER_SNAPSHOT_BYTES: "-1" } }))
        .code,
    ).toBe("E_CLUSTER_CONFIG_INVALID");
  });
});

describe("redactUrl", () => {
  it("hides a password or a token", () => {
    expect(redactUrl("nats://ann:pw@host:1")).toBe("nats://ann:***@host:1");
    expect(redactUrl("nats://tok@host:1")).toBe("nats://***@host:1");
    expect(redactUrl("nats://host:1")).toBe("nats://host:1");
  });
});
