/**
 * Built-in extension `message-window`: before each step, keeps only the last `maxMessages` (default 40)
 * messages of the conversation by emitting durable `remove` events for older ones. With `keepHistory` (default
 * true) they are archived: out of what the model sees and of the agent process's memory, still in the store,
 * where `ctx.conversation.older()` reads them; `keepHistory: false` deletes them, as upstream does. The cut never orphans tool
 * results (it moves forward past tool messages, so a call and its results go together) and never removes the
 * current turn's own user message.
 */
import type { ExtensionApi, JsonObject, Message } from "../../index.ts";

export function windowRemovals(
  messages: readonly Message[],
  options: { maxMessages: number; keepIds?: ReadonlySet<string> },
): string[] {
  if (messages.length <= options.maxMessages) return [];
  let cut = messages.length - options.maxMessages;
  while (cut < messages.length && messages[cut]?.data.role === "tool") cut += 1;
  return messages
    .slice(0, cut)
    .filter((message) => !(options.keepIds?.has(message.id) ?? false))
    .map((message) => message.id);
}

export function register(api: ExtensionApi, config: JsonObject): void {
  const maxMessages =
    typeof config.maxMessages === "number" && config.maxMessages >= 1 ? Math.floor(config.maxMessages) : 40;
  const archive = config.keepHistory !== false;
  api.pipeline.register(
    "step",
    async (ctx) => {
      const own = ctx.messages
        .filter((message) => message.source.type === "user" && message.metadata.eventId === ctx.inputEvent.id)
        .map((message) => message.id);
      const removals = windowRemovals(ctx.messages, { maxMessages, keepIds: new Set(own) });
      for (const targetId of removals) ctx.emitMessageEvent({ type: "remove", targetId, archive });
      if (removals.length > 0)
        api.logger.debug({ removed: removals.length, maxMessages }, "message window trimmed the conversation");
      return ctx.next();
    },
    { priority: -100 },
  );
}
