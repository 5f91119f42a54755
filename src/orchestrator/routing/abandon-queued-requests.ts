/**
 * A stopped instance's queued requests will only run after the restart: a requester whose turn waits on one is
 * cut short rather than left waiting out the grace period, so a drain ends as soon as the running turns end.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { PendingRequests } from "./pending-requests.ts";

export function abandonQueuedRequests(options: {
  callee: { address: string; queue: readonly { event: AgentEvent }[] };
  pending: PendingRequests;
  requester: (address: string) => { cutTurnShort(reason: string): void } | undefined;
}): void {
  const { callee } = options;
  for (const entry of callee.queue) {
    const replyTo = entry.event.replyTo;
    const request =
      replyTo && options.pending.peek({ requester: replyTo.target, correlationId: replyTo.correlationId });
    if (request?.blocking)
      options
        .requester(request.requester)
        ?.cutTurnShort(`its request to ${callee.address} runs only after the restart`);
  }
}
