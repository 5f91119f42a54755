/**
 * `goondan instance archive`: moves the older part of an instance's conversation out of the live one, never
 * silently. The messages before the last `keep` (the cut moved back to a user message, so at least `keep` stay and no
 * tool result is parted from its call) are written to `<instance dir>/archive/<time>.jsonl` and synced first, then removed from the store in one
 * commit: a crash between the two leaves them in both places, never in neither.
 */
import { join } from "node:path";
import type { Message } from "../../protocol/conversation.ts";
import { writeJsonlAtomic } from "../../shared/jsonl-file.ts";
import type { InstanceRef, Store } from "../../store/store.ts";

/** Where the kept part starts: `keep` from the end, then back to the user message that begins that exchange. */
export function archiveCut(messages: readonly Message[], keep: number): number {
  let cut = Math.max(0, messages.length - keep);
  while (cut > 0 && cut < messages.length && messages[cut]?.data.role !== "user") cut -= 1;
  return cut;
}

export async function archiveConversation(options: {
  store: Store;
  ref: InstanceRef;
  dir: string;
  keep: number;
  now?: Date;
}): Promise<{ archived: number; kept: number; file?: string }> {
  const { messages } = options.store.instanceState(options.ref);
  const cut = archiveCut(messages, options.keep);
  if (cut === 0) return { archived: 0, kept: messages.length };
  const archived = messages.slice(0, cut);
  const file = join(options.dir, "archive", `${(options.now ?? new Date()).toISOString().replace(/[:.]/g, "-")}.jsonl`);
  writeJsonlAtomic(file, archived);
  await options.store.commit(options.ref, {
    changes: archived.map((message) => ({ type: "remove" as const, targetId: message.id })),
  });
  return { archived: archived.length, kept: messages.length - cut, file };
}
