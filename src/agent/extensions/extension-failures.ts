/**
 * Makes a failing extension loud: every middleware that throws on its own is logged as a warning naming the
 * extension and the hook (`turn`, `step` or `toolCall`) and recorded as an `extension.failed` runtime event,
 * with the turn, step and tool call it broke. The error itself goes on as before (the turn or step fails; a
 * toolCall middleware's throw becomes that call's error result).
 */
import { describe } from "../../shared/errors.ts";
import { newSpanId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/logger.ts";
import type { RuntimeEventSink } from "../loop/runtime-event-sink.ts";
import type { MiddlewareFailure } from "./pipeline-registry.ts";

interface FailureScope {
  traceId?: unknown;
  turnId?: unknown;
  stepIndex?: unknown;
  toolName?: unknown;
  toolCallId?: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

export function reportExtensionFailures(options: {
  logger: Logger;
  runtimeEvents: RuntimeEventSink;
}): (failure: MiddlewareFailure) => void {
  return (failure) => {
    const scope = (
      typeof failure.context === "object" && failure.context !== null ? failure.context : {}
    ) as FailureScope;
    const described = describe(failure.error);
    const extension = failure.extension ?? "(no extension)";
    const where = {
      ...(text(scope.turnId) === undefined ? {} : { turnId: text(scope.turnId) }),
      ...(typeof scope.stepIndex === "number" ? { stepIndex: scope.stepIndex } : {}),
      ...(text(scope.toolName) === undefined ? {} : { toolName: text(scope.toolName) }),
      ...(text(scope.toolCallId) === undefined ? {} : { toolCallId: text(scope.toolCallId) }),
    };
    options.logger.warn(
      {
        extension,
        hook: failure.hook,
        ...where,
        error: described.message.slice(0, 500),
        ...(described.code === undefined ? {} : { code: described.code }),
      },
      `Extension/${extension} threw in its ${failure.hook} middleware`,
    );
    options.runtimeEvents.emit({
      type: "extension.failed",
      traceId: text(scope.traceId) ?? "",
      spanId: newSpanId(),
      ...where,
      error: { code: described.code ?? "E_EXTENSION_FAILED", message: described.message.slice(0, 1000) },
      data: { extension, hook: failure.hook },
    });
  };
}
