/**
 * Built-in extension `required-tools-guard`: refuses to let a turn end until every tool in
 * `Agent.spec.requiredTools` (or `config.tools`) was called successfully in that turn. A name matches a full
 * tool name (`bash__exec`) or a whole Tool resource (`bash`). When the model answers without the required
 * calls, a reminder message is added and the turn continues, up to `config.maxReminders` (default 3) times;
 * `maxStepsPerTurn` still bounds the turn. The public extension's config is read too: `requiredTools` (then
 * one successful call of ANY of them is enough, as there, unless `match: all`) and `errorMessage` (the
 * reminder's text). `match: any | all` chooses explicitly.
 */
import type { ExtensionApi, JsonObject } from "../../index.ts";

export function missingRequiredTools(required: readonly string[], called: ReadonlySet<string>): string[] {
  return required.filter((name) => ![...called].some((tool) => tool === name || tool.startsWith(`${name}__`)));
}

const names = (value: unknown): string[] | undefined =>
  Array.isArray(value)
    ? value.filter((name): name is string => typeof name === "string" && name.trim() !== "")
    : undefined;

/** The tools still owed: all of `missing` under `all`, none once any required tool was called under `any`. */
export function owedTools(required: readonly string[], called: ReadonlySet<string>, match: "all" | "any"): string[] {
  const missing = missingRequiredTools(required, called);
  return match === "any" && missing.length < required.length ? [] : missing;
}

export function register(api: ExtensionApi, config: JsonObject): void {
  const publicList = names(config.requiredTools);
  const required = names(config.tools) ?? publicList ?? api.agent.requiredTools;
  const match =
    config.match === "any" || config.match === "all" ? config.match : publicList !== undefined ? "any" : "all";
  const errorMessage =
    typeof config.errorMessage === "string" && config.errorMessage.trim() !== "" ? config.errorMessage : undefined;
  const maxReminders = typeof config.maxReminders === "number" && config.maxReminders >= 0 ? config.maxReminders : 3;
  if (required.length === 0) return;
  const turns = new Map<string, { called: Set<string>; reminders: number }>();

  api.pipeline.register("turn", async (ctx) => {
    turns.set(ctx.turnId, { called: new Set(), reminders: 0 });
    try {
      return await ctx.next();
    } finally {
      turns.delete(ctx.turnId);
    }
  });

  api.pipeline.register("step", async (ctx) => {
    const result = await ctx.next();
    const turn = turns.get(ctx.turnId);
    if (turn === undefined) return result;
    for (const outcome of result.toolResults) if (outcome.result.status !== "error") turn.called.add(outcome.toolName);
    if (result.continueTurn) return result;
    const missing = owedTools(required, turn.called, match);
    if (missing.length === 0 || turn.reminders >= maxReminders) {
      if (missing.length > 0) api.logger.warn({ missing, turnId: ctx.turnId }, "turn ends without its required tools");
      return result;
    }
    turn.reminders += 1;
    ctx.emitMessageEvent({
      type: "append",
      message: {
        id: `${ctx.turnId}-required-tools-${turn.reminders}`,
        data: {
          role: "user",
          content:
            errorMessage ??
            (match === "any"
              ? `Before finishing, you must call one of these tools: ${missing.join(", ")}.`
              : `Before finishing, you must call these required tools: ${missing.join(", ")}.`),
        },
        metadata: { turnId: ctx.turnId, extension: api.name },
        createdAt: new Date().toISOString(),
        source: { type: "extension", name: api.name },
      },
    });
    return { ...result, continueTurn: true };
  });
}
