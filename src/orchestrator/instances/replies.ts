/**
 * How a reply reaches the instance that asked for it (outcome-router.ts hands it over). An async one is stored
 * already (a pending result): an instance without a child is started for it. A blocking one goes to the turn waiting
 * for it, on a draining child too; without that turn it is dropped, and the redelivered turn reattaches to the
 * request and gets it from the store. On an ordered store a blocking reply is handed over just before the commit of
 * the turn that answered; when the store refuses that commit, the child that took the reply holds it unsaved
 * (store-faults.ts): nothing more of its turn is stored, and it runs again from the store.
 */
import type { ParentToChild } from "../../protocol/ipc-messages.ts";
import type { InstanceParts } from "./on-child-message.ts";

/** True when a running turn took the reply. */
export function deliverReply(
  parts: InstanceParts,
  reply: ParentToChild["delegate_result"],
  options: { blocking: boolean },
): boolean {
  const { supervisor } = parts;
  const child = supervisor.child;
  const turnAlive =
    supervisor.status === "running" || (supervisor.status === "draining" && parts.events.inFlight !== undefined);
  if (child && turnAlive && child.send("delegate_result", reply)) return true;
  if (options.blocking)
    parts.logger.debug(
      { correlationId: reply.correlationId },
      "reply for a turn no longer running; its redelivery reattaches",
    );
  else if (!child) supervisor.ensureRunning();
  return false;
}

/** The commit of the turn that answered a blocking reply it took was refused: its child holds the reply unsaved. */
export function replyRefused(parts: InstanceParts): void {
  const child = parts.supervisor.child;
  if (child) parts.storeFaults.holdsUnsaved.add(child);
}
