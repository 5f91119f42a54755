/**
 * MessageEvents, the only way a conversation changes (`append | replace | remove | truncate`), and the pure
 * fold that applies them to a message list. Applying is idempotent (an append of a message id already present
 * is a no-op, removing a missing id is a no-op), so replaying events that were already folded into base after a
 * crash between "write base" and "clear events" yields the same conversation.
 */
import type { Message } from "../../tools/types.ts";

export type MessageEvent =
  | { type: "append"; message: Message }
  | { type: "replace"; targetId: string; message: Message }
  | { type: "remove"; targetId: string }
  | { type: "truncate" };

export function applyMessageEvent(messages: readonly Message[], event: MessageEvent): Message[] {
  switch (event.type) {
    case "append":
      return messages.some((message) => message.id === event.message.id) ? [...messages] : [...messages, event.message];
    case "replace":
      return messages.map((message) => (message.id === event.targetId ? event.message : message));
    case "remove":
      return messages.filter((message) => message.id !== event.targetId);
    case "truncate":
      return [];
  }
}

export function foldMessageEvents(base: readonly Message[], events: readonly MessageEvent[]): Message[] {
  return events.reduce<Message[]>((messages, event) => applyMessageEvent(messages, event), [...base]);
}
