/**
 * The pure fold of a MessageEvent onto a message list. Applying is idempotent (an append of a message id already
 * present is a no-op, removing a missing id is a no-op), so a change applied twice leaves the same conversation.
 */
import type { Message, MessageEvent } from "../../protocol/conversation.ts";

export type { MessageEvent } from "../../protocol/conversation.ts";

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
