/**
 * One AG-UI run as events, from the messages of its turn (turn-projection.ts): RUN_STARTED; the entry agent's text as TEXT_MESSAGE_*
 * (a message closes when a tool call starts, and whatever of the final reply was not streamed is sent at the end);
 * every tool call of the run's trace (delegated agents' too, each naming its `agent` and `instanceKey` in metadata)
 * as TOOL_CALL_START with its arguments in one TOOL_CALL_ARGS, then TOOL_CALL_END when it ends and a TOOL_CALL_RESULT
 * once the turn ended and stored it; and last RUN_FINISHED (`success`, or `interrupt` with one interrupt per
 * approval the turn waits for, its id the approval's) or RUN_ERROR with the turn's code. Messages are taken one at
 * a time, in order (the arguments are read from the store), so each event is written at its message's position.
 */
import { EventType, type BaseEvent, type Interrupt } from "@ag-ui/core";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { ToolProgress } from "../../protocol/turn-progress.ts";
import type { TurnMessage } from "../turn-projection.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ReplyText } from "../reply-text.ts";
import { toolCallArguments, toolCallResults } from "./tool-call-details.ts";

/** The `reason` of an interrupt for a tool call a person must approve. */
export const TOOL_APPROVAL_REASON = "tool_approval";

interface OpenCall {
  agent: string;
  instanceKey: string;
  ended: boolean;
}

export class AgUiRun {
  private readonly reply = new ReplyText();
  private readonly calls = new Map<string, OpenCall>();
  private messageId: string | undefined;
  private messages = 0;

  constructor(
    private readonly options: {
      backend: ApiBackend;
      threadId: string;
      runId: string;
      emit: (event: BaseEvent) => void;
    },
  ) {}

  start(): void {
    this.emit({ type: EventType.RUN_STARTED, threadId: this.options.threadId, runId: this.options.runId });
  }

  /** Takes one message of the turn (turn-projection.ts); the caller waits for it before the next. */
  async take(message: TurnMessage): Promise<void> {
    if (message.kind === "restarted") this.reply.restart();
    else if (message.kind === "delta") this.text(this.reply.add(message.text));
    else await this.tool(message.progress);
  }

  /** Ends the run with the turn's outcome, or with an error that left no outcome. */
  async finish(ended: TurnOutcome | { code: string; message: string }): Promise<void> {
    if ("status" in ended && ended.status !== "error") this.text(this.reply.rest(ended.response));
    this.closeText();
    for (const [toolCallId, call] of this.calls)
      if (!call.ended) this.emit({ type: EventType.TOOL_CALL_END, toolCallId, ...this.metadata(call) });
    await this.results();
    await this.end(ended);
  }

  /**
   * Only the run's last event (RUN_FINISHED or RUN_ERROR) for the outcome: a run resumed after an orchestrator
   * restart, whose client had the rest of it.
   */
  async end(ended: TurnOutcome | { code: string; message: string }): Promise<void> {
    if (!("status" in ended) || ended.status === "error") {
      const error =
        "status" in ended ? (ended.error ?? { code: "E_AGENT_TURN_FAILED", message: "the turn failed" }) : ended;
      this.emit({ type: EventType.RUN_ERROR, message: error.message, code: error.code });
      return;
    }
    const base = { type: EventType.RUN_FINISHED, threadId: this.options.threadId, runId: this.options.runId };
    if (ended.status === "awaiting_approval") {
      const interrupts = await this.interrupts(ended.approvalIds ?? []);
      if (interrupts.length > 0) {
        this.emit({ ...base, outcome: { type: "interrupt", interrupts } });
        return;
      }
    }
    this.emit({ ...base, outcome: { type: "success" }, result: { eventId: ended.eventId, response: ended.response } });
  }

  /** An error before the run could start a turn (a refused resume decision). */
  fail(error: { code: string; message: string }): void {
    this.emit({ type: EventType.RUN_ERROR, message: error.message, code: error.code });
  }

  private emit(event: BaseEvent & Record<string, unknown>): void {
    this.options.emit(event);
  }

  private metadata(call: { agent: string; instanceKey: string }) {
    return { metadata: { agent: call.agent, instanceKey: call.instanceKey } };
  }

  private text(text: string): void {
    if (text === "") return;
    if (this.messageId === undefined) {
      this.messages += 1;
      this.messageId = `${this.options.runId}-message-${this.messages}`;
      this.emit({ type: EventType.TEXT_MESSAGE_START, messageId: this.messageId, role: "assistant" });
    }
    this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.messageId, delta: text });
  }

  private closeText(): void {
    if (this.messageId === undefined) return;
    this.emit({ type: EventType.TEXT_MESSAGE_END, messageId: this.messageId });
    this.messageId = undefined;
  }

  private async tool(progress: ToolProgress): Promise<void> {
    const { toolCallId } = progress;
    const known = this.calls.get(toolCallId);
    if (progress.phase === "started" && known === undefined) {
      this.closeText();
      const call = { agent: progress.agent, instanceKey: progress.instanceKey, ended: false };
      this.calls.set(toolCallId, call);
      this.emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: progress.name, ...this.metadata(call) });
      const delta = await toolCallArguments({ backend: this.options.backend, ...call, toolCallId });
      this.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta });
    } else if (progress.phase === "ended" && known !== undefined && !known.ended) {
      known.ended = true;
      this.emit({ type: EventType.TOOL_CALL_END, toolCallId, ...this.metadata(known) });
    }
  }

  private async results(): Promise<void> {
    const byInstance = new Map<string, { agent: string; instanceKey: string; ids: string[] }>();
    for (const [toolCallId, call] of this.calls) {
      const key = JSON.stringify([call.agent, call.instanceKey]);
      const group = byInstance.get(key) ?? { agent: call.agent, instanceKey: call.instanceKey, ids: [] };
      group.ids.push(toolCallId);
      byInstance.set(key, group);
    }
    for (const group of byInstance.values()) {
      const results = await toolCallResults({ backend: this.options.backend, ...group, toolCallIds: group.ids });
      for (const [toolCallId, content] of results)
        this.emit({
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${toolCallId}-result`,
          toolCallId,
          content,
          role: "tool",
        });
    }
  }

  private async interrupts(approvalIds: readonly string[]): Promise<Interrupt[]> {
    const pending = await this.options.backend.orchestrator.approvals.pending().catch(() => []);
    return pending
      .filter((approval) => approvalIds.includes(approval.id))
      .map((approval) => ({
        id: approval.id,
        reason: TOOL_APPROVAL_REASON,
        message: `${approval.agent} asks to run ${approval.toolName}`,
        toolCallId: approval.toolCallId,
        ...(approval.expiresAt === undefined ? {} : { expiresAt: new Date(approval.expiresAt).toISOString() }),
        responseSchema: {
          type: "object",
          properties: { approved: { type: "boolean" }, reason: { type: "string" } },
          required: ["approved"],
        },
        metadata: {
          agent: approval.agent,
          instanceKey: approval.instanceKey,
          toolName: approval.toolName,
          arguments: approval.arguments,
          eventId: approval.eventId,
        },
      }));
  }
}
