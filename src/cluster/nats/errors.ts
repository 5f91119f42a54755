/**
 * How the cluster parts read and report NATS failures: the one reading lives with the JetStream backend of the
 * store (src/store/nats/nats-errors.ts), which the cluster builds on; `clusterUnavailable` is its name here.
 */
export { isWrongRevision, natsUnavailable as clusterUnavailable } from "../../store/nats/index.ts";
