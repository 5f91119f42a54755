/**
 * Built-in extension `context-message`: adds runtime context to the system prompt of every model call, in
 * upstream Goondan's blocks: `[runtime_catalog]` (the swarm's agents: entry, self, available, callable, with
 * descriptions; `includeSwarmCatalog`), `[runtime_inbound]` (the event that started the turn, with a
 * connector's properties such as a Telegram chat_id or a Slack channel_id; `includeInboundContext`),
 * `[runtime_call]` (who asked, the call chain, the reply channel; `includeCallContext`) and `[runtime_route]`
 * (who the sender is, agent over connector; `includeRouteSummary`). The Agent's own prompt always comes first
 * here (the core puts it there), so `includeAgentPrompt` changes nothing.
 *
 * Unlike upstream, which appends the context as a system message to the conversation, it is added to each
 * step's system prompt: it never piles up in the history, is fresh every step, and works with providers that
 * refuse system messages mid-conversation. Also unlike upstream, when `includeInboundContext` is not set the
 * inbound block is shown for turns started by a connector or another agent, so the model knows where a message
 * came from and where to answer (a chat id, the caller's instance).
 */
import type { ExtensionApi, JsonObject, TurnMiddlewareContext } from "../../index.ts";

export interface ContextMessageSettings {
  includeSwarmCatalog: boolean;
  /** `auto`: for turns a connector or another agent started. */
  includeInboundContext: boolean | "auto";
  includeCallContext: boolean;
  includeRouteSummary: boolean;
  swarmCatalogInstruction: string;
}

const DEFAULT_INSTRUCTION =
  "When it is unclear which agent should take a task, call agents__catalog for the current list before delegating.";

export function contextMessageSettings(config: JsonObject): ContextMessageSettings {
  const flag = (key: string) => config[key] === true;
  return {
    includeSwarmCatalog: flag("includeSwarmCatalog"),
    includeInboundContext: typeof config.includeInboundContext === "boolean" ? config.includeInboundContext : "auto",
    includeCallContext: flag("includeCallContext"),
    includeRouteSummary: flag("includeRouteSummary"),
    swarmCatalogInstruction:
      typeof config.swarmCatalogInstruction === "string" && config.swarmCatalogInstruction.trim() !== ""
        ? config.swarmCatalogInstruction.trim()
        : DEFAULT_INSTRUCTION,
  };
}

type Catalog = Awaited<ReturnType<TurnMiddlewareContext["agents"]["catalog"]>>;

export function catalogBlock(options: { catalog: Catalog; self: string; instruction: string }): string {
  const names = options.catalog.agents.map((agent) => agent.name);
  const lines = [
    "[runtime_catalog]",
    `entryAgent=${options.catalog.agents.find((agent) => agent.entry)?.name ?? ""}`,
    `selfAgent=${options.self}`,
    `availableAgents=${names.join(", ")}`,
    `callableAgents=${names.filter((name) => name !== options.self).join(", ")}`,
    ...options.catalog.agents
      .filter((agent) => agent.description !== undefined)
      .map((agent) => `agent.${agent.name}=${agent.description}`),
    "[/runtime_catalog]",
  ];
  if (options.instruction !== "") lines.push(options.instruction);
  return lines.join("\n");
}

export function inboundBlock(event: TurnMiddlewareContext["inputEvent"]): string {
  const { message: _message, ...metadata } = event.metadata;
  const lines = [
    "[runtime_inbound]",
    `eventId=${event.id}`,
    `eventType=${event.type}`,
    `sourceKind=${event.source.kind}`,
    `sourceName=${event.source.name}`,
  ];
  if (event.source.instanceKey !== undefined) lines.push(`sourceInstanceKey=${event.source.instanceKey}`);
  lines.push(`createdAt=${event.createdAt}`, `instanceKey=${event.instanceKey}`);
  if (Object.keys(metadata).length > 0) lines.push(`eventMetadata=${JSON.stringify(metadata)}`);
  lines.push("[/runtime_inbound]");
  return lines.join("\n");
}

export function callBlock(event: TurnMiddlewareContext["inputEvent"]): string | undefined {
  if (event.source.kind !== "agent") return undefined;
  const lines = ["[runtime_call]", `callerAgent=${event.source.name}`];
  if (event.source.instanceKey !== undefined) lines.push(`callerInstanceKey=${event.source.instanceKey}`);
  lines.push(`callSource=${event.type}`);
  if (event.callChain.length > 0) lines.push(`callStack=${event.callChain.join(" -> ")}`);
  if (event.replyTo !== undefined)
    lines.push(`replyTo.target=${event.replyTo.target}`, `replyTo.correlationId=${event.replyTo.correlationId}`);
  lines.push("[/runtime_call]");
  return lines.join("\n");
}

export function routeBlock(event: TurnMiddlewareContext["inputEvent"]): string {
  const fromAgent = event.source.kind === "agent";
  return [
    "[runtime_route]",
    "precedence=call>inbound",
    `senderKind=${event.source.kind}`,
    `senderName=${event.source.name}`,
    `eventType=${event.type}`,
    `eventId=${event.id}`,
    `senderInstanceKey=${fromAgent ? (event.source.instanceKey ?? "") : event.instanceKey}`,
    "[/runtime_route]",
  ].join("\n");
}

export function register(api: ExtensionApi, config: JsonObject): void {
  const settings = contextMessageSettings(config);
  const perTurn = new Map<string, Promise<string>>();

  const contextOf = async (ctx: TurnMiddlewareContext): Promise<string> => {
    const event = ctx.inputEvent;
    const blocks: string[] = [];
    if (settings.includeSwarmCatalog) {
      try {
        blocks.push(
          catalogBlock({
            catalog: await ctx.agents.catalog(),
            self: ctx.agentName,
            instruction: settings.swarmCatalogInstruction,
          }),
        );
      } catch (error) {
        api.logger.warn(
          { error: error instanceof Error ? error.message : String(error) },
          "context-message: the swarm catalog is unavailable this turn",
        );
      }
    }
    const inbound =
      settings.includeInboundContext === "auto"
        ? event.source.kind === "connector" || event.source.kind === "agent"
        : settings.includeInboundContext;
    if (inbound) blocks.push(inboundBlock(event));
    const call = settings.includeCallContext ? callBlock(event) : undefined;
    if (call !== undefined) blocks.push(call);
    if (settings.includeRouteSummary && (inbound || settings.includeCallContext)) blocks.push(routeBlock(event));
    return blocks.join("\n\n");
  };

  api.pipeline.register("turn", async (ctx) => {
    perTurn.set(ctx.turnId, contextOf(ctx));
    try {
      return await ctx.next();
    } finally {
      perTurn.delete(ctx.turnId);
    }
  });

  api.pipeline.register("step", async (ctx) => {
    const context = await (perTurn.get(ctx.turnId) ?? contextOf(ctx));
    if (context !== "") ctx.systemPrompt = ctx.systemPrompt === "" ? context : `${ctx.systemPrompt}\n\n${context}`;
    return ctx.next();
  });
}
