/**
 * Finding instances whose events wait with no live owner: every instance that ever had an owner has a durable
 * consumer on the intake stream; one with events pending or unacked whose lease nobody holds (its node died, or
 * was cut off and stopped) is an orphan, and the sweep offers it to `claim` (which decides by placement whether
 * this node takes it: a node that drains, having refused the cluster's last reload, is never placement's pick, so it
 * takes an orphan only when no node that agrees has room). Instance names come back from the consumer's subject
 * filter.
 */
import type { LeaseHolder } from "../lease/lease-table.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import type { ClusterNames } from "../nats/names.ts";
import { decodeSubjectToken } from "../nats/subject-token.ts";

export interface SweepOptions {
  connection: ClusterConnection;
  names: ClusterNames;
  owns(key: string): boolean;
  holder(key: string): Promise<LeaseHolder | undefined>;
  claim(agent: string, instanceKey: string): Promise<void>;
}

/** Offers each orphaned instance to `claim`; returns how many were offered. */
export async function sweepOrphans(options: SweepOptions): Promise<number> {
  const { names } = options;
  let offered = 0;
  for await (const info of options.connection.jsm.consumers.list(names.intakeStream)) {
    if (info.num_pending + info.num_ack_pending === 0) continue;
    const tokens = (info.config.filter_subject ?? "").split(".");
    const agent = decodeSubjectToken(tokens.at(-2) ?? "");
    const instanceKey = decodeSubjectToken(tokens.at(-1) ?? "");
    if (agent === undefined || instanceKey === undefined) continue;
    const key = names.instanceLeaseKey(agent, instanceKey);
    if (options.owns(key) || (await options.holder(key)) !== undefined) continue;
    offered++;
    await options.claim(agent, instanceKey);
  }
  return offered;
}
