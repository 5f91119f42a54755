/**
 * A step an agent commits before its tool calls run (child-state.ts, commitStep): answered `committed` once on disk,
 * unless the child says the calls only ask the orchestrator (`sync: false`, protocol/instance-state.ts CommitOptions)
 * and the store is ordered: then it is answered once applied, with no sync of its own, and the next synced write
 * makes it durable with everything before it. A store that is not ordered syncs it whatever the child says.
 */
import { describe, expect, it } from "bun:test";
import { SystemError } from "../../src/shared/errors.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commitStep } from "../../src/orchestrator/instances/child-state.ts";
import type { Message } from "../../src/protocol/conversation.ts";
import type { InstanceRef, Store, WriteOptions } from "../../src/store/store.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { ChildProcess } from "../../src/supervision/child-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();
const ref: InstanceRef = { swarm: "s", agent: "a", instanceKey: "k" };

const message = (id: string): Message => ({
  id,
  data: { role: "user", content: id },
  metadata: {},
  createdAt: "2026-11-28T00:00:00.000Z",
  source: { type: "user" },
});

function openStore(): SqliteStore {
  const dir = mkdtempSync(join(tmpdir(), "goondan-step-commit-"));
  const store = new SqliteStore(join(dir, "goondan.db"));
  defer(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

/** Runs commitStep and resolves with what the child is answered; `heard` lists, in order, refused() and the answer. */
function step(store: Store, id: string, sync?: false, heard: string[] = []): Promise<unknown> {
  const answered = Promise.withResolvers<unknown>();
  const child = {
    send: (type: string, payload: unknown) => {
      heard.push(type);
      if (type === "committed") answered.resolve(payload);
      return true;
    },
  } as unknown as ChildProcess;
  commitStep({
    store,
    ref,
    child,
    commit: { seq: 1, changes: [{ type: "append", message: message(id) }], ...(sync === false ? { sync } : {}) },
    refused: () => void heard.push("refused"),
  });
  return answered.promise;
}

describe("commitStep", () => {
  it("answers a step once synced by default", async () => {
    const store = openStore();
    const before = store.syncs;
    expect(await step(store, "m1")).toEqual({ seq: 1 });
    expect(store.syncs).toBe(before + 1);
  });

  it("answers a step whose calls only ask the orchestrator once applied, and the next synced write covers it", async () => {
    const store = openStore();
    const before = store.syncs;
    expect(await step(store, "m1", false)).toEqual({ seq: 1 });
    expect(store.syncs).toBe(before);
    expect(store.instanceState(ref).messages.map((entry) => entry.id)).toEqual(["m1"]);
    await step(store, "m2");
    expect(store.syncs).toBe(before + 1);
  });

  it("syncs the step anyway on a store that is not ordered", async () => {
    const store = openStore();
    const options: (WriteOptions | undefined)[] = [];
    const unordered = new Proxy(store, {
      get(target, key) {
        if (key === "ordered") return false;
        if (key === "commit")
          return (...args: Parameters<Store["commit"]>) => {
            options.push(args[3]);
            return target.commit(...args);
          };
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Store;
    await step(unordered, "m1", false);
    expect(options).toEqual([undefined]);
  });

  it("says a refused step is refused before the child hears it, so the child's later calls can be refused", async () => {
    const store = openStore();
    const refusing = new Proxy(store, {
      get(target, key) {
        if (key === "commit")
          return () => Promise.reject(new SystemError("E_STORE_UNAVAILABLE", "database or disk is full"));
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Store;
    const heard: string[] = [];
    expect(await step(refusing, "m1", false, heard)).toEqual({
      seq: 1,
      error: { code: "E_STORE_UNAVAILABLE", message: "database or disk is full" },
    });
    expect(heard).toEqual(["refused", "committed"]);
  });
});
