/**
 * A swarm whose instances have long histories, for bench/history-growth.ts and its real-process test: a bundle on
 * the `replay` model (every turn answers "ok"), one agent that sees the whole conversation (`talker`) and one behind
 * the base `message-window` (`windowed`, 40 messages) with a `recall` extension that answers a turn whose input is
 * "recall" with the ids of the two stored messages just before the oldest one it holds (ctx.conversation.older), and
 * histories written into the state database before goondan starts, as a long-lived instance would have left them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Message, MessageEvent } from "../../src/protocol/conversation.ts";
import type { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { openStateStore } from "../../src/store/open-state-store.ts";

export const SWARM = "history";
export const WINDOW = 40;

const CASSETTE_LINE = {
  v: 1,
  request: { lastRole: "user" },
  reply: { content: [{ type: "text", text: "ok" }], finishReason: "stop", usage: { input: 1, output: 1 } },
};

const RECALL = `export function register(api) {
  api.pipeline.register("turn", async (ctx) => {
    const result = await ctx.next();
    if (ctx.inputEvent.input !== "recall") return result;
    const oldest = ctx.messages[0];
    const page = await ctx.conversation.older({ before: oldest?.id, limit: 2 });
    return { ...result, response: JSON.stringify({ oldest: oldest?.id, page: page.map((message) => message.id) }) };
  });
}
`;

/** Writes the bundle into `dir`. */
export function writeLongHistoryBundle(dir: string): void {
  writeFileSync(join(dir, "bench.jsonl"), `${JSON.stringify(CASSETTE_LINE)}\n`);
  writeFileSync(join(dir, "recall.ts"), RECALL);
  writeFileSync(
    join(dir, "goondan.yaml"),
    [
      `apiVersion: goondan.ai/v1\nkind: Package\nmetadata: { name: long-history }\nspec: { version: 0.1.0, dependencies: ["@goondan/base"] }`,
      `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: replay }\nspec: { provider: replay, model: bench, options: { cassette: ./bench.jsonl } }`,
      `apiVersion: goondan.ai/v1\nkind: Extension\nmetadata: { name: recall }\nspec: { entry: ./recall.ts }`,
      `apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: talker }\nspec: { modelConfig: { modelRef: Model/replay }, prompt: { system: "You talk." } }`,
      `apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: windowed }\nspec:\n  modelConfig: { modelRef: Model/replay }\n  prompt: { system: "You talk." }\n  extensions:\n    - ref: { kind: Extension, name: message-window, package: "@goondan/base" }\n      config: { maxMessages: ${WINDOW} }\n    - Extension/recall`,
      `apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: ${SWARM} }\nspec: { entryAgent: Agent/talker, agents: [Agent/talker, Agent/windowed], policy: { lifecycle: { idleSeconds: 3600 } } }`,
    ].join("\n---\n"),
  );
}

/** A past exchange: a user line and the assistant's answer of about `bytes` characters each, alternating. */
export function pastMessages(options: { count: number; prefix: string; bytes: number }): Message[] {
  const createdAt = new Date(0).toISOString();
  const filler = "sunny, 21 degrees, light wind from the west. ".repeat(Math.max(1, Math.ceil(options.bytes / 46)));
  return Array.from({ length: options.count }, (_, index) =>
    index % 2 === 0
      ? {
          id: `${options.prefix}-${index}`,
          data: { role: "user", content: `question ${index}: how is the weather on day ${index}?` },
          metadata: {},
          createdAt,
          source: { type: "user" },
        }
      : {
          id: `${options.prefix}-${index}`,
          data: {
            role: "assistant",
            content: [{ type: "text", text: `answer ${index}: ${filler.slice(0, options.bytes)}` }],
          },
          metadata: {},
          createdAt,
          source: { type: "assistant" },
        },
  );
}

/**
 * Writes each instance's history into the state root's store: `count` messages, all in the conversation, or with
 * `window` only the last `window` of them there and the rest archived (as message-window leaves them).
 */
export async function seedHistories(
  stateRoot: string,
  histories: { agent: string; instanceKey: string; count: number; bytes: number; window?: number }[],
): Promise<void> {
  const store = openStateStore({ stateRoot, logger: silentLogger() });
  for (const history of histories) {
    const messages = pastMessages({ count: history.count, prefix: history.instanceKey, bytes: history.bytes });
    const changes: MessageEvent[] = messages.map((message) => ({ type: "append", message }));
    if (history.window !== undefined)
      for (const message of messages.slice(0, Math.max(0, messages.length - history.window)))
        changes.push({ type: "remove", targetId: message.id, archive: true });
    await store.commit({ swarm: SWARM, agent: history.agent, instanceKey: history.instanceKey }, { changes });
  }
  await store.close();
}

/** The resident set of the instance's agent process, in MiB (NaN when it has none). */
export function childRssMiB(orchestrator: Orchestrator, instanceKey: string): number {
  const pid = orchestrator.processes().find((row) => row.instanceKey === instanceKey)?.pid;
  const match = pid ? /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8")) : null;
  return match ? Number(match[1]) / 1024 : Number.NaN;
}
