/**
 * The hand-written part of the goondan.yaml reference (docs/generate-reference.ts): a note for each field
 * whose schema carries no description, keyed `Kind.path` (or `metadata.*` for every kind), and one example
 * per kind, which the docs snippet test validates against the schema.
 */
import type { Kind } from "../src/config/types.ts";

/** Notes for fields whose schema has no description. */
export const NOTES: Record<string, string> = {
  "metadata.name":
    "The resource's name, unique per kind. Tool names use lowercase letters, digits, `-` and `_`, never `__`; export names may also use upper case (`setChatAction`).",
  "metadata.labels": "Free-form string labels.",
  "metadata.annotations": "Free-form string annotations.",
  "Package.spec.version": "The bundle's version.",
  "Package.spec.description": "What the bundle is for.",
  "Package.spec.access": "Publication access, kept for compatibility with public bundles.",
  "Package.spec.dependencies":
    "Other packages this one needs (name, or {name, version}). `@goondan/base` is always available.",
  "Package.spec.registry": "Registry to publish to, kept for compatibility with public bundles.",
  "Model.spec.provider": "Which AI SDK provider serves the model. `replay` answers from a cassette with no network.",
  "Model.spec.model": "The provider's model id (e.g. `claude-sonnet-4-5`, `gpt-4o-mini`).",
  "Model.spec.apiKey":
    "The API key. Only the env vars of resources the selected Swarm uses are required at run time. Without it, the provider's standard variable is used: `ANTHROPIC_API_KEY`, `OPENAI_API_KEY` or `GOOGLE_GENERATIVE_AI_API_KEY`.",
  "Model.spec.endpoint":
    "Base URL of the provider's API; honoured by every provider, required for `openai-compatible`. Without it, the provider's standard variable is used (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, `GOOGLE_GENERATIVE_AI_BASE_URL`), then the provider's default URL. These variables reach only the agent processes whose Model uses that provider, never a tool's command.",
  "Model.spec.options":
    "Provider options. `replay` reads `options.cassette`: a bundle-relative JSONL file written by `goondan run --record`.",
  "Model.spec.capabilities": "Capability flags, kept for compatibility with public bundles.",
  "Model.spec.pricing":
    "US dollars per million input and output tokens, for the costs `goondan eval` reports (default: a small table of known models, docs/evals.md).",
  "Eval.spec.swarm": "The Swarm the cases run against (default: the bundle's only Swarm).",
  "Eval.spec.agent": "The Agent each case talks to (default: the Swarm's entry agent).",
  "Eval.spec.cases":
    "The cases: each a `name`, an `input` or `turns`, optional `fixtures` and the `expect`ations its run is scored by (docs/evals.md).",
  "Agent.spec.modelConfig.modelRef": "The Model this agent calls.",
  "Agent.spec.modelConfig.params": "Sampling parameters passed to every call.",
  "Agent.spec.modelConfig.params.temperature": "Sampling temperature.",
  "Agent.spec.modelConfig.params.maxTokens": "Maximum output tokens per call.",
  "Agent.spec.modelConfig.params.topP": "Nucleus sampling.",
  "Agent.spec.prompt.system": "The system prompt, inline. goondan puts it in front of every model call.",
  "Agent.spec.prompt.systemRef": "A bundle-relative file holding the system prompt.",
  "Agent.spec.tools": "The tools offered to the model (the step's catalog starts from this list).",
  "Agent.spec.extensions": "Extensions loaded into the agent process, in order.",
  "Agent.spec.requiredTools":
    "Tool names the agent must call before it ends a turn (enforced by the `required-tools-guard` extension: an Agent that does not list it gets it, and one successful call of any of these tools is enough, as in the public Goondan runtime; list it to require all).",
  "Agent.spec.description": "What the agent does; shown to other agents by `agents__catalog`.",
  "Agent.spec.process":
    "How the agent's instances are spread over processes (see [concepts](concepts.md#processes-one-per-agent-shared-by-its-instances)).",
  "Agent.spec.process.isolation":
    "`agent` (default): instances share the agent's processes; `instance`: each instance has a process of its own.",
  "Agent.spec.process.maxProcesses": "Most processes of this agent at once (default 1; 64 with `isolation: instance`).",
  "Agent.spec.process.maxInstancesPerProcess":
    "Most instances one shared process holds (default 1000); beyond all of them work waits. Not with `isolation: instance`.",
  "Swarm.spec.entryAgent":
    "The agent that receives `--input`, API events without `agent`, and unrouted connector events. Must be listed in `agents`.",
  "Swarm.spec.agents": "The agents of this swarm.",
  "Swarm.spec.instanceKey": "The default instance key of events sent to the swarm.",
  "Swarm.spec.policy.maxStepsPerTurn": "Steps (model calls) per turn before it ends with `finishReason: max_steps`.",
  "Swarm.spec.policy.maxDelegationDepth":
    "Longest chain of `agents__request` calls (`E_DELEGATION_DEPTH_EXCEEDED` beyond).",
  "Swarm.spec.policy.requestTimeoutMs": "Deadline of an inter-agent request (`E_AGENT_REQUEST_TIMEOUT`).",
  "Swarm.spec.policy.shutdown.gracePeriodSeconds":
    "How long a child may take to finish its turn on shutdown before it is killed.",
  "Swarm.spec.policy.restart.maxConsecutiveCrashes":
    "Crashes in a row restarted at once; beyond, the child backs off (`crashLoopBackOff`) and a poison event is answered with `E_AGENT_CRASHED`.",
  "Swarm.spec.policy.restart.initialBackoffMs": "First backoff delay, doubling on each further crash.",
  "Swarm.spec.policy.restart.maxBackoffMs": "Longest backoff delay.",
  "Swarm.spec.policy.lifecycle.idleSeconds": "An instance idle this long is stopped (its conversation stays on disk).",
  "Swarm.spec.policy.lifecycle.maxInstances":
    "Most agent instances alive at once on this node; beyond it work waits in its queue and the least recently used idle instance makes room.",
  "Swarm.spec.policy.lifecycle.maxProcesses":
    "Older spelling of `maxInstances` (read as it when `maxInstances` is absent).",
  "Swarm.spec.policy.lifecycle.heartbeatTimeoutSeconds":
    "A child whose turn sends no heartbeat this long (its event loop is blocked, e.g. by a tool's synchronous loop) is killed and handled as a crash.",
  "Swarm.spec.policy.lifecycle.ttlSeconds": "Accepted for compatibility with public bundles.",
  "Swarm.spec.policy.lifecycle.gcGraceSeconds": "Accepted for compatibility with public bundles.",
  "Swarm.spec.policy.retention.runtimeEvents.maxAge":
    'Runtime events older than this (`90m`, `36h`, `7d`) are deleted in the background, a small batch at a time (docs/limits.md, "Memory"). Default: kept for ever.',
  "Swarm.spec.policy.retention.runtimeEvents.maxRows":
    "The newest this many runtime events of the swarm are kept; older ones are deleted in the background. Default: no limit.",
  "Tool.spec.entry": "Bundle-relative module exporting `handlers: Record<exportName, ToolHandler>`.",
  "Tool.spec.errorMessageLimit": "Error messages the model reads are cut to this length, ending in `... (truncated)`.",
  "Tool.spec.exports": "The functions the model sees, as `{tool}__{export}`.",
  "Tool.spec.exports[].name": "Export name, unique in the tool.",
  "Tool.spec.exports[].description": "What the function does, for the model.",
  "Tool.spec.exports[].parameters": "JSON Schema of the arguments, validated before the handler runs.",
  "Tool.spec.exports[].timeoutMs": "The call fails with `E_TOOL_TIMEOUT` and `ctx.signal` aborts after this long.",
  "Tool.spec.exports[].idempotent":
    "Running it twice with the same arguments does no more than once (a read, a pure function): its call is recorded before it runs without waiting for the disk.",
  "Tool.spec.config": "Tool settings, passed to handlers as `ctx.config`.",
  "Extension.spec.entry": "Bundle-relative module exporting `register(api, config)`.",
  "Extension.spec.config": "Default config; an Agent's `extensions[].config` is merged over it.",
  "Connector.spec.entry": "Bundle-relative module run in its own process.",
  "Connector.spec.events": "The events the connector emits.",
  "Connector.spec.events[].name": "Event name, matched by Connection ingress rules.",
  "Connector.spec.events[].description": "What the event means.",
  "Connector.spec.events[].properties": "Properties the event carries, each `{type, optional?}`.",
  "Connection.spec.connectorRef": "The Connector to run.",
  "Connection.spec.swarmRef": "The Swarm that receives its events (default: the swarm being run).",
  "Connection.spec.config": "Connector settings; values may be ValueSources.",
  "Connection.spec.secrets": "Secrets passed to the connector, as ValueSources; never logged.",
  "Connection.spec.ingress.rules": "Routing rules, first match wins.",
  "Connection.spec.ingress.rules[].match.event":
    "Event name to match: one the Connector emits, or an older alias of one. A name it never emits is an error (`E_CONFIG_UNKNOWN_EVENT`): the rule could never match.",
  "Connection.spec.verify.webhook.signingSecret":
    "The secret requests are signed with; the connector receives it as `secrets.signingSecret` (the built-in webhook then refuses unsigned requests).",
  "Connection.spec.ingress.rules[].match.properties": "Property values to match.",
  "Connection.spec.ingress.rules[].route.agentRef": "Target agent (default: the entry agent).",
  "Connection.spec.ingress.rules[].route.instanceKey": "Fixed instance key.",
  "Connection.spec.ingress.rules[].route.instanceKeyProperty":
    "Take the instance key from this event property (e.g. a chat id).",
  "Connection.spec.ingress.rules[].route.instanceKeyPrefix": "Prefix for a key taken from a property.",
  "Connection.spec.ingress.rules[].signal":
    "Send a matched event as this signal to the turns waiting for it (`timer__waitForSignal`) instead of routing it; not with `route`, nor on a schedule (`E_CONFIG_SIGNAL_RULE_INVALID`). See [schedules](schedules.md#a-connector-event-as-a-signal).",
};

export const EXAMPLES: Record<Kind, string> = {
  Package: `apiVersion: goondan.ai/v1
kind: Package
metadata:
  name: my-swarm
spec:
  version: 0.1.0
  description: Agents that keep my notes`,
  Model: `apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: claude
spec:
  provider: anthropic
  model: claude-sonnet-4-5
  apiKey:
    valueFrom:
      env: ANTHROPIC_API_KEY
---
apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: local
spec:
  provider: openai-compatible
  model: llama3.1
  endpoint: http://127.0.0.1:11434/v1
---
apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: replay
spec:
  provider: replay
  model: demo
  options:
    cassette: ./cassettes/demo.jsonl`,
  Agent: `apiVersion: goondan.ai/v1
kind: Agent
metadata:
  name: worker
spec:
  description: Does file work
  modelConfig:
    modelRef: Model/claude
    params: { temperature: 0.2, maxTokens: 2048 }
  prompt:
    systemRef: ./prompts/worker.md
  tools:
    - ref: { kind: Tool, name: file-system, package: "@goondan/base" }
    - Tool/notes
  extensions:
    - ref: { kind: Extension, name: message-window, package: "@goondan/base" }
      config: { maxMessages: 20 }`,
  Swarm: `apiVersion: goondan.ai/v1
kind: Swarm
metadata:
  name: team
spec:
  entryAgent: Agent/coordinator
  agents: [Agent/coordinator, Agent/worker]
  policy:
    maxStepsPerTurn: 16
    requestTimeoutMs: 120000
    shutdown: { gracePeriodSeconds: 10 }
    restart: { maxConsecutiveCrashes: 3 }
    lifecycle: { idleSeconds: 300, maxInstances: 2000 }`,
  Tool: `apiVersion: goondan.ai/v1
kind: Tool
metadata:
  name: notes
spec:
  entry: ./tools/notes.ts
  errorMessageLimit: 500
  exports:
    - name: append
      description: Add one line to the notes
      timeoutMs: 5000
      parameters:
        type: object
        properties: { text: { type: string } }
        required: [text]
        additionalProperties: false`,
  Extension: `apiVersion: goondan.ai/v1
kind: Extension
metadata:
  name: audit
spec:
  entry: ./extensions/audit.ts
  config: { level: info }`,
  Connector: `apiVersion: goondan.ai/v1
kind: Connector
metadata:
  name: chat
spec:
  entry: ./connectors/chat.ts
  events:
    - name: message
      properties: { chatId: { type: string }, text: { type: string } }`,
  Connection: `apiVersion: goondan.ai/v1
kind: Connection
metadata:
  name: chat-to-team
spec:
  connectorRef: Connector/chat
  swarmRef: Swarm/team
  secrets:
    token: { valueFrom: { env: CHAT_TOKEN } }
  ingress:
    rules:
      - match: { event: message }
        route:
          agentRef: Agent/coordinator
          instanceKeyProperty: chatId
          instanceKeyPrefix: "chat-"`,
  Eval: `apiVersion: goondan.ai/v1
kind: Eval
metadata:
  name: smoke
spec:
  cases:
    - name: greets
      input: Say hello.
      expect:
        contains: hello
        maxSteps: 2
    - name: reads-the-notes
      fixtures:
        - path: notes.md
          content: "buy milk"
      input: What is in notes.md?
      expect:
        toolCalled:
          - tool: file-system__read
            args: { path: { $regex: "notes" } }
        regex: /milk/i`,
};
