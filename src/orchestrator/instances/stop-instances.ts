/**
 * Stopping every instance at shutdown: no more starts, each child asked to finish its turn and exit (SIGKILL after
 * the grace period), and the requests still queued for an instance that stopped answered as abandoned.
 */
import { abandonQueuedRequests } from "../routing/abandon-queued-requests.ts";
import type { PendingRequests } from "../routing/pending-requests.ts";
import type { Instance } from "./instance.ts";

export async function stopInstances(options: {
  instances: readonly Instance[];
  pending: PendingRequests;
  requester: (address: string) => Instance | undefined;
  reason: string;
  gracePeriodMs: number;
}): Promise<void> {
  for (const instance of options.instances) instance.close();
  await Promise.all(
    options.instances.map(async (instance) => {
      await instance.stop({ reason: options.reason, gracePeriodMs: options.gracePeriodMs });
      abandonQueuedRequests({ callee: instance, pending: options.pending, requester: options.requester });
    }),
  );
}
