/**
 * Built-in extension `logging`: one log line per turn, step and tool call with durations, token usage and
 * tool status, at `config.level` (default `info`). Arguments and outputs are not logged (they may hold secrets).
 */
import type { ExtensionApi, JsonObject } from "../../index.ts";

type Level = "trace" | "debug" | "info" | "warn";

export function register(api: ExtensionApi, config: JsonObject): void {
  const level: Level =
    config.level === "trace" || config.level === "debug" || config.level === "warn" ? config.level : "info";
  const log = (fields: Record<string, unknown>, message: string): void => api.logger[level](fields, message);
  api.pipeline.register(
    "turn",
    async (ctx) => {
      const startedAt = Date.now();
      log({ turnId: ctx.turnId, eventId: ctx.inputEvent.id, source: ctx.inputEvent.source.name }, "turn started");
      const result = await ctx.next();
      log(
        {
          turnId: ctx.turnId,
          status: result.status,
          finishReason: result.finishReason,
          steps: result.steps,
          usage: result.usage,
          durationMs: Date.now() - startedAt,
        },
        "turn ended",
      );
      return result;
    },
    { priority: -1000 },
  );
  api.pipeline.register(
    "step",
    async (ctx) => {
      const startedAt = Date.now();
      const result = await ctx.next();
      log(
        {
          turnId: ctx.turnId,
          stepIndex: ctx.stepIndex,
          tools: ctx.toolCatalog.length,
          toolCalls: result.toolCalls.map((call) => call.name),
          usage: result.usage,
          durationMs: Date.now() - startedAt,
        },
        "step ended",
      );
      return result;
    },
    { priority: -1000 },
  );
  api.pipeline.register(
    "toolCall",
    async (ctx) => {
      const startedAt = Date.now();
      const result = await ctx.next();
      log(
        {
          toolName: ctx.toolName,
          toolCallId: ctx.toolCallId,
          status: result.status,
          ...(result.status === "error" ? { code: result.error.code } : {}),
          durationMs: Date.now() - startedAt,
        },
        "tool call ended",
      );
      return result;
    },
    { priority: -1000 },
  );
}
