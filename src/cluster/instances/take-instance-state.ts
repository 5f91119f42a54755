/**
 * What a node does with an instance's durable state when it claims the instance: take its JetStream state log
 * (the fence) and replay it into the node's embedded store, or, when the log still ends at this node's own last
 * write (`resumeAfter`), keep the local copy as it is. Says which in the log; false when a newer lease holder took
 * the log first (the node must not run the instance).
 */
import type { Logger } from "../../shared/logger.ts";
import type { InstanceStateLog } from "../../store/nats/index.ts";
import type { Store } from "../../store/store.ts";
import type { Lease } from "../lease/lease-table.ts";

export interface TakeInstanceStateOptions {
  swarm: string;
  stateLog: InstanceStateLog;
  /** The node's embedded store (set once the daemon wrapped it; a claim before that is a bug). */
  local: () => Store | undefined;
  logger: Logger;
}

export function takeInstanceState(options: TakeInstanceStateOptions) {
  const { swarm, stateLog, logger } = options;
  return async (agent: string, instanceKey: string, lease: Lease, resumeAfter?: number): Promise<boolean> => {
    const store = options.local();
    if (store === undefined) throw new Error("ClusterNode: claim before store()");
    const started = Date.now();
    const outcome = await stateLog.take(
      { swarm, agent, instanceKey },
      lease,
      store,
      resumeAfter === undefined ? {} : { resumeAfter },
    );
    if (outcome.taken && outcome.resumed)
      logger.info(
        { agent, instanceKey, sequence: resumeAfter },
        "took back an instance whose state log still ends at this node's last write; nothing replayed",
      );
    else if (outcome.taken && (outcome.replayed > 0 || outcome.fromSnapshot))
      logger.info(
        {
          agent,
          instanceKey,
          records: outcome.replayed,
          fromSnapshot: outcome.fromSnapshot === true,
          ms: Date.now() - started,
        },
        "replayed an instance's state log",
      );
    return outcome.taken;
  };
}
