/**
 * What a starting agent process is handed (child-state.ts, hydrateChild): the conversation its model sees, never
 * the archived history, and a warning in the orchestrator's log when that conversation is large enough for the
 * process's memory to grow with it.
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
  const handed = Promise.withResolvers<InstanceState>();
  const child = {
    send: (type: string, payload: unknown) => {
      if (type === "hydrate") handed.resolve(payload as InstanceState);
      return true;
    },
    kill: () => handed.reject(new Error("the child was stopped")),
  } as unknown as ChildProcess;
  hydrateChild({ store, ref, child, current: () => true, logger });
  return { state: await handed.promise, warnings: lines.filter((line) => line.level === 40) };
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
});
