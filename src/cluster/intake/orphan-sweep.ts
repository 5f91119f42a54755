/**
 * Finding instances whose events wait with no live owner: every instance that ever had an owner has a durable
 * consumer on the intake stream; one with events pending or unacked whose lease nobody holds (its node died, or
 * was cut off and stopped) is an orphan, and the sweep offers it to `claim` (which decides by placement whether
 * this node takes it: a node that drains, having refused the cluster's last reload, is never placement's pick, so it
 * takes an orphan only when no node that agrees has room). Instance names come back from the consumer's subject
 * filter. Instances named by `more` (those holding messages for later) are offered the same way.
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
  /** More instances that need a live owner though no event waits for them (messages for later, stored). */
  more?: () => Promise<Array<{ agent: string; instanceKey: string }>>;
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
    if (await offer(options, agent, instanceKey)) offered++;
  }
  for (const { agent, instanceKey } of (await options.more?.()) ?? [])
    if (await offer(options, agent, instanceKey)) offered++;
  return offered;
}

/** Offers the instance to `claim` when nobody runs it; true when offered. */
async function offer(options: SweepOptions, agent: string, instanceKey: string): Promise<boolean> {
  const key = options.names.instanceLeaseKey(agent, instanceKey);
  if (options.owns(key) || (await options.holder(key)) !== undefined) return false;
  await options.claim(agent, instanceKey);
  return true;
}
