import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { legacyReadings, legacySafeName, migrateSafeNames } from "../../src/shared/migrate-safe-names.ts";
import { instanceKeyOfDir } from "../../src/shared/recorded-names.ts";
import { instancePaths, safeName } from "../../src/shared/state-paths.ts";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** An instance directory named as the old mapping named it, with a conversation line and, optionally, its records. */
function oldInstance(options: {
  stateRoot: string;
  swarm?: string;
  agent: string;
  dirName: string;
  recordedKey?: string;
  inboxKey?: string;
}): string {
  const dir = join(
    options.stateRoot,
    "workspaces",
    options.swarm ?? "duo",
    "instances",
    options.agent,
    options.dirName,
  );
  mkdirSync(join(dir, "workdir"), { recursive: true });
  writeFileSync(join(dir, "base.jsonl"), `{"role":"user","content":"hello from ${options.dirName}"}\n`);
  if (options.recordedKey !== undefined) {
    writeFileSync(
      join(dir, "runtime-events.jsonl"),
      `${JSON.stringify({ type: "turn.started", at: "2025-01-01T00:00:00Z", agent: "worker", instanceKey: options.recordedKey })}\n`,
    );
  }
  if (options.inboxKey !== undefined) {
    mkdirSync(join(dir, "inbox"), { recursive: true });
    writeFileSync(
      join(dir, "inbox", "journal.jsonl"),
      `${JSON.stringify({ op: "accept", at: 1, event: { id: "evt_1", instanceKey: options.inboxKey } })}\n{"op":"done","id":"evt_1"}\n`,
    );
  }
  return dir;
}

function freshRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "goondan-migrate-"));
  roots.push(root);
  return root;
}

const conversation = (stateRoot: string, agent: string, instanceKey: string): string =>
  readFileSync(instancePaths({ stateRoot, swarmInstanceKey: "duo", agent, instanceKey }).base, "utf8");

describe("legacyReadings", () => {
  it("finds every key the old mapping could have named %ac00, and the only one for an unambiguous name", () => {
    expect(legacySafeName("가")).toBe("%ac00");
    expect(legacySafeName("¬00")).toBe("%ac00");
    expect(legacyReadings("%ac00", 5).sort()).toEqual(["¬00", "\u0ac00", "가"].sort());
    expect(legacyReadings("caf%e9")).toEqual(["café"]);
    expect(legacyReadings("Bob")).toEqual(["Bob"]);
    expect(legacyReadings("%2e%2e")).toEqual([".."]);
    expect(legacyReadings("%41")).toEqual([]); // the old mapping never escaped a letter
  });
});

describe("migrateSafeNames", () => {
  it("moves each old directory to its new name, taking the key from the instance's records when the name is ambiguous", () => {
    const stateRoot = freshRoot();
    oldInstance({ stateRoot, agent: "worker", dirName: "%ac00", recordedKey: "가" });
    oldInstance({ stateRoot, agent: "coordinator", dirName: "%ac00", inboxKey: "¬00" });
    oldInstance({ stateRoot, agent: "worker", dirName: "Bob" });
    oldInstance({ stateRoot, agent: "worker", dirName: "%e9t%e9" });
    oldInstance({ stateRoot, agent: "worker", dirName: "plain-key" });

    const report = migrateSafeNames({ stateRoot });

    expect(report.skipped).toEqual([]);
    expect(report.moved.length).toBe(4);
    expect(conversation(stateRoot, "worker", "가")).toContain("hello from %ac00");
    expect(conversation(stateRoot, "coordinator", "¬00")).toContain("hello from %ac00");
    expect(conversation(stateRoot, "worker", "Bob")).toContain("hello from Bob");
    expect(conversation(stateRoot, "worker", "été")).toContain("hello from %e9t%e9");
    expect(conversation(stateRoot, "worker", "plain-key")).toContain("hello from plain-key");
    expect(readdirSync(join(stateRoot, "workspaces", "duo", "instances", "worker")).sort()).toEqual([
      "+00e9t+00e9",
      "+ac00",
      "^bob",
      "plain-key",
    ]);
  });

  it("renames agent and swarm directories too, after the instances inside them", () => {
    const stateRoot = freshRoot();
    oldInstance({ stateRoot, swarm: "Team", agent: "Worker", dirName: "K1", recordedKey: "K1" });
    const report = migrateSafeNames({ stateRoot });
    expect(report.moved.map((move) => move.to.slice(stateRoot.length))).toEqual([
      "/workspaces/Team/instances/Worker/^k1",
      "/workspaces/Team/instances/^worker",
      "/workspaces/^team",
    ]);
    const paths = instancePaths({ stateRoot, swarmInstanceKey: "Team", agent: "Worker", instanceKey: "K1" });
    expect(readFileSync(paths.base, "utf8")).toContain("hello from K1");
  });

  it("is idempotent, and finishes a migration that stopped half-way", () => {
    const stateRoot = freshRoot();
    oldInstance({ stateRoot, agent: "worker", dirName: "Alice" });
    oldInstance({ stateRoot, agent: "worker", dirName: "Carol" });
    // A first run died after moving Alice: her directory already has its new name.
    oldInstance({ stateRoot, agent: "worker", dirName: safeName("Bob") });
    const first = migrateSafeNames({ stateRoot });
    expect(first.moved.length).toBe(2);
    const second = migrateSafeNames({ stateRoot });
    expect(second).toEqual({ moved: [], skipped: [] });
    expect(readdirSync(join(stateRoot, "workspaces", "duo", "instances", "worker")).sort()).toEqual([
      "^alice",
      "^bob",
      "^carol",
    ]);
  });

  it("leaves an ambiguous directory that records no key where it is, and never overwrites a taken name", () => {
    const stateRoot = freshRoot();
    const ambiguous = oldInstance({ stateRoot, agent: "worker", dirName: "%ab12" });
    const old = oldInstance({ stateRoot, agent: "worker", dirName: "Dan" });
    const taken = oldInstance({ stateRoot, agent: "worker", dirName: safeName("Dan") });
    const report = migrateSafeNames({ stateRoot });
    expect(report.moved).toEqual([]);
    expect(report.skipped).toEqual([
      {
        dir: ambiguous,
        reason: "the old name reads several ways and the directory records no key",
        candidates: ["«12", "\u0ab12"],
      },
      { dir: old, reason: `${taken} already exists` },
    ]);
    expect(existsSync(ambiguous)).toBe(true);
    expect(readFileSync(join(taken, "base.jsonl"), "utf8")).toContain(`hello from ${safeName("Dan")}`);
  });

  it("moves a long old name to a bounded one whose key the records still give back", () => {
    const stateRoot = freshRoot();
    const key = `Long-${"k".repeat(220)}`;
    oldInstance({ stateRoot, agent: "worker", dirName: legacySafeName(key), recordedKey: key });
    expect(migrateSafeNames({ stateRoot }).moved.length).toBe(1);
    const dir = instancePaths({ stateRoot, swarmInstanceKey: "duo", agent: "worker", instanceKey: key }).root;
    expect(existsSync(dir)).toBe(true);
    expect(instanceKeyOfDir(dir)).toBe(key);
  });
});
