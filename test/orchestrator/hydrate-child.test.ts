/**
 * What a starting agent process is handed (child-state.ts, hydrateChild): the conversation its model sees, never
 * the archived history, at once (before hydrateChild returns: right behind the child's `open`), and a warning in the
 * orchestrator's log when that conversation is large enough for the process's memory to grow with it. A state the
 * store cannot read stops the child.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../../src/protocol/conversation.ts";
import type { InstanceState } from "../../src/protocol/instance-state.ts";
import { hydrateChild, LARGE_CONVERSATION_MESSAGES } from "../../src/orchestrator/instances/child-state.ts";
import { createLogger } from "../../src/shared/logger.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { ChildProcess } from "../../src/supervision/child-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();
const ref = { swarm: "s", agent: "a", instanceKey: "k" };

const message = (id: string): Message => ({
  id,
  data: { role: "user", content: id },
  metadata: {},
  createdAt: "2026-11-23T00:00:00.000Z",
  source: { type: "user" },
});

async function hydrate(options: { live: number; archived: number }) {
  const dir = mkdtempSync(join(tmpdir(), "goondan-hydrate-"));
  const store = new SqliteStore(join(dir, "goondan.db"));
  defer(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const all = Array.from({ length: options.archived + options.live }, (_, index) => message(`m${index}`));
  await store.commit(ref, {
    changes: [
      ...all.map((entry) => ({ type: "append" as const, message: entry })),
      ...all
        .slice(0, options.archived)
        .map((entry) => ({ type: "remove" as const, targetId: entry.id, archive: true })),
    ],
  });
  const lines: { level: number; msg: string; messages?: number }[] = [];
  const logger = createLogger("test", {
    level: "info",
    pretty: false,
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  let handed: InstanceState | undefined;
  const child = {
    send: (type: string, payload: unknown) => {
      if (type === "hydrate") handed = payload as InstanceState;
      return true;
    },
    kill: () => {
      throw new Error("the child was stopped");
    },
  } as unknown as ChildProcess;
  hydrateChild({ store, ref, child, logger });
  if (handed === undefined) throw new Error("hydrateChild returned before it handed the state over");
  return { state: handed, warnings: lines.filter((line) => line.level === 40) };
}

describe("hydrateChild", () => {
  it("hands the conversation the model sees, not the archived history, without a warning", async () => {
    const { state, warnings } = await hydrate({ live: 40, archived: 2000 });
    expect(state.messages.map((entry) => entry.id)).toEqual(
      Array.from({ length: 40 }, (_, index) => `m${2000 + index}`),
    );
    expect(warnings).toEqual([]);
  });

  it("warns when the process is handed more messages than LARGE_CONVERSATION_MESSAGES", async () => {
    const { state, warnings } = await hydrate({ live: LARGE_CONVERSATION_MESSAGES + 1, archived: 0 });
    expect(state.messages).toHaveLength(LARGE_CONVERSATION_MESSAGES + 1);
    expect(warnings.map((line) => line.messages)).toEqual([LARGE_CONVERSATION_MESSAGES + 1]);
  });

  it("stops the child, and logs why, when the store cannot read the state", () => {
    const sent: string[] = [];
    let killed = 0;
    const child = { send: (type: string) => sent.push(type) > 0, kill: () => void killed++ } as unknown as ChildProcess;
    const lines: { level: number; error?: string }[] = [];
    const logger = createLogger("test", {
      level: "info",
      pretty: false,
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    const store = {
      instanceState: () => {
        throw new Error("E_STORE_CORRUPT: database disk image is malformed");
      },
    } as unknown as SqliteStore;
    hydrateChild({ store, ref, child, logger });
    expect(sent).toEqual([]);
    expect(killed).toBe(1);
    expect(lines.filter((line) => line.level === 50).map((line) => line.error)).toEqual([
      "E_STORE_CORRUPT: database disk image is malformed",
    ]);
  });
});
