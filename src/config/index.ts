/**
 * The config plane's public surface in one import: load and validate a bundle, read it (refs, swarm,
 * agents, tools, extensions, prompts), resolve ValueSources and the env a Swarm needs, and the
 * editor schema. Other layers may also import the single files directly.
 */
export {
  loadBundle,
  loadBundleOrThrow,
  formatIssue,
  formatIssues,
  type BundleLoadResult,
  type LoadBundleOptions,
} from "./load-bundle.ts";
export {
  findResource,
  resolveRef,
  selectSwarm,
  swarmAgents,
  swarmConnections,
  agentTools,
  agentExtensions,
  agentModel,
  resolveEntry,
  readSystemPrompt,
  mergeConfig,
} from "./resolve.ts";
export {
  resolveValueSource,
  valueSourceEnvName,
  secretEnvName,
  isValueSource,
  requiredEnv,
  missingEnvIssues,
  type Env,
  type RequiredEnv,
} from "./value-source.ts";
export { documentSchema } from "./document-schema.ts";
export { ISSUE_CODES, type IssueCode } from "./issue-codes.ts";
export * from "./types.ts";
