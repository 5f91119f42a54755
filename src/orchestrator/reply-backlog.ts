/**
 * Replies held for an instance whose child is gone (crashed, reaped, not yet restarted): released in
 * order when it is ready again, minus those whose request deadline passed meanwhile (dropped with a log line).
 */
import type { ParentToChild } from "../ipc/protocol.ts";
import type { Logger } from "../shared/logger.ts";

type Reply = ParentToChild["delegate_result"];

export class ReplyBacklog {
  private readonly held: { reply: Reply; deadline: number }[] = [];

  hold(reply: Reply, deadline: number): void {
    this.held.push({ reply, deadline });
  }

  release(options: { now: number; logger: Logger }): Reply[] {
    return this.held.splice(0).flatMap(({ reply, deadline }) => {
      if (deadline >= options.now) return [reply];
      options.logger.warn({ correlationId: reply.correlationId }, "reply held for a gone instance passed its deadline; dropped");
      return [];
    });
  }
}
