/**
 * Open (creating when absent) one of the swarm's KV buckets with the settings this node expects. Every node
 * opens the same buckets, and opening an existing bucket keeps the settings it was made with; when those differ
 * from ours (another node runs with another lease TTL) the node refuses with an E_CLUSTER_CONFIG_MISMATCH
 * naming the bucket, what it expected and what it found, instead of running with a TTL it did not ask for.
 */
import type { KV, KvStatus } from "@nats-io/kv";
import { ConfigError } from "../../shared/errors.ts";
import type { ClusterConnection } from "./connection.ts";
import { clusterUnavailable } from "./errors.ts";

export interface OpenBucketOptions {
  connection: ClusterConnection;
  bucket: string;
  /** Every key vanishes this long after its last write; 0 = never. */
  ttlMs: number;
  /** Revisions kept per key. Default 1. */
  history?: number;
  description: string;
}

export async function openBucket(options: OpenBucketOptions): Promise<KV> {
  const { connection, bucket, ttlMs } = options;
  let kv: KV;
  let status: KvStatus;
  try {
    kv = await connection.kvm.create(bucket, {
      ttl: ttlMs,
      history: options.history ?? 1,
      description: options.description,
    });
    status = await kv.status();
  } catch (error) {
    throw clusterUnavailable(`opening the KV bucket ${bucket}`, error);
  }
  if (status.ttl !== ttlMs) {
    throw new ConfigError(
      "E_CLUSTER_CONFIG_MISMATCH",
      `the cluster's KV bucket ${bucket} keeps keys for ${status.ttl} ms, but this node expects ${ttlMs} ms`,
      {
        suggestion:
          "Run every node of the cluster with the same lease TTL, or delete the bucket while no node runs (nats kv del).",
      },
    );
  }
  return kv;
}
