/**
 * Replies held for an instance without a child to hand them to (crashed, reaped, not yet restarted, or the
 * orchestrator just restarted): journaled in the instance's durable inbox (synced) so that no reply is lost
 * with the orchestrator, and handed over in order once the child is ready, minus those whose request deadline
 * passed meanwhile (dropped with a log line).
 */
import type { ParentToChild } from "../../protocol/ipc-messages.ts";
import type { Logger } from "../../shared/logger.ts";
import type { DurableInbox, HeldReply } from "./durable-inbox.ts";

type Reply = ParentToChild["delegate_result"];

export class ReplyBacklog {
  private readonly held: HeldReply[] = [];

  constructor(
    private readonly inbox: DurableInbox,
    private readonly owner: { agent: string; instanceKey: string },
  ) {}

  hold(reply: Reply, deadline: number): void {
    const held: HeldReply = { ...this.owner, reply, deadline };
    this.inbox.holdReply(held);
    this.held.push(held);
  }

  /** Replies found in the journal when the orchestrator resumes: already durable. */
  restore(replies: readonly HeldReply[]): void {
    this.held.push(...replies);
  }

  /** Hands every held reply to `send` (false: the channel closed, keep it) and forgets the expired ones. */
  release(options: { now: number; logger: Logger; send: (reply: Reply) => boolean }): void {
    for (const held of this.held.splice(0)) {
      const { reply, deadline } = held;
      if (deadline < options.now) {
        options.logger.warn({ correlationId: reply.correlationId }, "reply held for a gone instance passed its deadline; dropped");
        this.inbox.releaseReply(reply.correlationId);
      } else if (options.send(reply)) {
        this.inbox.releaseReply(reply.correlationId);
      } else {
        this.held.push(held);
      }
    }
  }
}
