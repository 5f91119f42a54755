/**
 * The public extension API's view of one turn's conversation: `baseMessages` (the messages as the turn found
 * them), `events` (the MessageEvents emitted during the turn, in order) and `nextMessages` (the messages now:
 * base with every event applied). `responseMessage` is the turn's answer: the last assistant message appended
 * during the turn. Read-only for extensions; they change the conversation with `ctx.emitMessageEvent`.
 */
import type { Message, MessageEvent } from "../../protocol/conversation.ts";
import type { Conversation } from "./conversation.ts";

export interface ConversationState {
  readonly baseMessages: readonly Message[];
  readonly events: readonly MessageEvent[];
  readonly nextMessages: readonly Message[];
}

export interface TurnConversationState extends ConversationState {
  /** Records an event emitted during the turn (after the conversation applied it). */
  record(event: MessageEvent): void;
  /** The last assistant message appended during the turn, if any. */
  responseMessage(): Message | undefined;
}

export function turnConversationState(conversation: Conversation): TurnConversationState {
  const baseMessages = [...conversation.messages];
  const events: MessageEvent[] = [];
  return {
    baseMessages,
    events,
    get nextMessages() {
      return conversation.messages;
    },
    record: (event) => void events.push(event),
    responseMessage: () => {
      for (let index = events.length - 1; index >= 0; index--) {
        const event = events[index];
        if (event?.type === "append" && event.message.data.role === "assistant") return event.message;
      }
      return undefined;
    },
  };
}
