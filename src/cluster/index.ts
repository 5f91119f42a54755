/**
 * The building blocks of a swarm run as several nodes over NATS JetStream (issue 13): settings and connection,
 * names, leases (table, watch, keeper) and fenced writes, membership and placement, cross-node messaging,
 * durable intake, and one bundle per cluster with its cluster-wide reload; and the node they make (ClusterNode: the orchestrator's
 * EventPlacement, its instances' leases and readers, their state logs), which the daemon composes for
 * `goondan run --cluster`. docs/cluster.md says how the parts fit and which are not built.
 */
export {
  readClusterSettings,
  redactUrl,
  CLUSTER_URL_ENV,
  CLUSTER_CREDS_ENV,
  CLUSTER_NODE_ENV,
  type ClusterSettings,
  type ReadClusterSettingsOptions,
} from "./cluster-settings.ts";
export {
  connectCluster,
  type ClusterConnection,
  type ClusterConnectionOptions,
  type ClusterConnectionState,
} from "./cluster-connection.ts";
export { clusterNames, BUNDLE_CONFIG_KEY, type ClusterNames } from "./cluster-names.ts";
export { subjectToken, decodeSubjectToken, MAX_SUBJECT_TOKEN_LENGTH } from "./subject-token.ts";
export {
  LeaseTable,
  DEFAULT_LEASE_TTL_MS,
  type Lease,
  type LeaseHolder,
  type ClaimOutcome,
  type RenewOutcome,
  type ReleaseOutcome,
  type LostReason,
} from "./lease-table.ts";
export { LeaseWatch, type LeaseChange, type LeaseChangeType } from "./lease-watch.ts";
export { LeaseKeeper, type LeaseKeeperOptions, type LeaseLossReason } from "./lease-keeper.ts";
export {
  FencedWriter,
  LEASE_REVISION_HEADER,
  type TakeOutcome,
  type AppendOutcome,
} from "../store/nats/fenced-writer.ts";
export { NodeMembership, nodeInfo, type NodeInfo, type JoinClusterOptions } from "./node-membership.ts";
export { chooseNode, placementCandidates, type PlacementCandidate } from "./placement.ts";
export {
  ClusterMessenger,
  type NodeRequests,
  type RequestOutcome,
  type InstanceReceipt,
  type Served,
} from "./cluster-messenger.ts";
export { EventIntake, type AcceptReceipt } from "./event-intake.ts";
export { InstanceIntake, type IntakeDelivery } from "./instance-intake.ts";
export { BundleAgreement, type BundleRecord, type ReloadAnnouncement, type ReloadReport } from "./bundle-agreement.ts";
export { ClusterReload, scopeRequests, type ClusterReloadOptions, type ClusterReloadStatus } from "./cluster-reload.ts";
export { bundleHash } from "./bundle-hash.ts";
export { ClusterNode, type JoinNodeOptions, type ClusterHost } from "./cluster-node.ts";
export type { NodeApi } from "./node-api.ts";
export { InstanceStateLog, type StateRecord } from "../store/nats/instance-state-log.ts";
export { ReplicatedStore } from "../store/nats/replicated-store.ts";
export { LiveEvents, lateLive, type LiveEventsOptions } from "./live-events.ts";
export {
  InterestAsker,
  InterestLedger,
  LIVE_RENEW_MS,
  type ClusterLive,
  type LiveFeed,
  type LiveWatch,
  type LiveApi,
} from "./live-interest.ts";
