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
} from "./nats/settings.ts";
export {
  connectCluster,
  type ClusterConnection,
  type ClusterConnectionOptions,
  type ClusterConnectionState,
} from "./nats/connection.ts";
export { clusterNames, BUNDLE_CONFIG_KEY, type ClusterNames } from "./nats/names.ts";
export { subjectToken, decodeSubjectToken, MAX_SUBJECT_TOKEN_LENGTH } from "./nats/subject-token.ts";
export {
  LeaseTable,
  DEFAULT_LEASE_TTL_MS,
  type Lease,
  type LeaseHolder,
  type ClaimOutcome,
  type RenewOutcome,
  type ReleaseOutcome,
  type LostReason,
} from "./lease/lease-table.ts";
export { LeaseWatch, type LeaseChange, type LeaseChangeType } from "./lease/lease-watch.ts";
export { LeaseKeeper, type LeaseKeeperOptions, type LeaseLossReason } from "./lease/lease-keeper.ts";
export {
  FencedWriter,
  LEASE_REVISION_HEADER,
  type TakeOutcome,
  type AppendOutcome,
} from "../store/nats/fenced-writer.ts";
export { NodeMembership, nodeInfo, type NodeInfo, type JoinClusterOptions } from "./members/node-membership.ts";
export { chooseNode, placementCandidates, type PlacementCandidate } from "./members/placement.ts";
export {
  ClusterMessenger,
  type NodeRequests,
  type RequestOutcome,
  type InstanceReceipt,
  type Served,
} from "./nats/messenger.ts";
export { EventIntake, type AcceptReceipt } from "./intake/event-intake.ts";
export { InstanceIntake, type IntakeDelivery } from "./intake/instance-intake.ts";
export { BundleAgreement, type BundleRecord, type ReloadAnnouncement, type ReloadReport } from "./reload/bundle-agreement.ts";
export { ClusterReload, scopeRequests, type ClusterReloadOptions, type ClusterReloadStatus } from "./reload/reload.ts";
export { bundleHash } from "./reload/bundle-hash.ts";
export { ClusterNode, type JoinNodeOptions, type ClusterHost } from "./node/node.ts";
export type { NodeApi } from "./node/node-api.ts";
export { InstanceStateLog, type StateRecord } from "../store/nats/instance-state-log.ts";
export { ReplicatedStore } from "../store/nats/replicated-store.ts";
export { LiveEvents, lateLive, type LiveEventsOptions } from "./live/live-events.ts";
export {
  InterestAsker,
  InterestLedger,
  LIVE_RENEW_MS,
  type ClusterLive,
  type LiveFeed,
  type LiveWatch,
  type LiveApi,
} from "./live/live-interest.ts";
