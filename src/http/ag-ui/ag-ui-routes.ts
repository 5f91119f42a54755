/**
 * The AG-UI surface (docs/interop.md): `POST /v1/ag-ui` (the entry agent) and `POST /v1/ag-ui/:agent` take a
 * RunAgentInput (ag-ui-input.ts) and answer with the run as server-sent events written by AG-UI's own encoder
 * (ag-ui-run.ts). A run with a user message sends it as an event to the `threadId` instance and streams its turn. A
 * run with `resume` decides the approvals its entries answer, through the same durable approvals as
 * `POST /v1/approvals/:id`, and streams the resumed turn: its tool calls from the runtime events of the approval's
 * trace, its reply when it ends. Bad input is a coded 4xx before the stream opens; once open, failures are RUN_ERROR.
 * Every event has an id, and the same input posted again with `Last-Event-ID` resumes the stream (ag-ui-resume.ts).
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { Approval } from "../../protocol/approval.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { checkApprover } from "../auth/approver.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { AGENT_NAME_SCHEMA, requestSchema } from "../request-schema.ts";
import { awaitOutcome } from "../routes/events.ts";
import { noQuery } from "../routes/no-query.ts";
import { sseResponse } from "../sse-stream.ts";
import type { Submitted } from "../../orchestrator/orchestrator-options.ts";
import { newTraceId } from "../../shared/ids.ts";
import { LiveTurnFeed, newestCursor } from "../turn-stream.ts";
import { AgUiStreamWriter } from "./ag-ui-stream.ts";
import { checkAgUiInput, resumeDecision, runInputText, type AgUiInput, type AgUiResumeEntry } from "./ag-ui-input.ts";
import { AgUiRun } from "./ag-ui-run.ts";
import { agUiResumeId, resumeAgUiStream } from "./ag-ui-resume.ts";
import { SseReplayLog } from "../sse-replay-log.ts";

const agentPath = requestSchema<{ agent: string }>({
  route: "POST /v1/ag-ui/:agent",
  part: "path",
  schema: {
    type: "object",
    required: ["agent"],
    additionalProperties: false,
    properties: { agent: AGENT_NAME_SCHEMA },
  },
});

/** Why a resume entry could not decide its approval, as the run's error. */
function refusal(id: string, type: "missing" | "already" | "forbidden"): { code: string; message: string } {
  if (type === "missing") return { code: "E_APPROVAL_NOT_FOUND", message: `no approval ${JSON.stringify(id)}` };
  if (type === "already")
    return { code: "E_APPROVAL_DECIDED", message: `approval ${id} was decided already; a decision is applied once` };
  return { code: "E_APPROVAL_FORBIDDEN", message: `approval ${id} names its approvers; this run is not one of them` };
}

/** Decides each entry's approval; the outcome of the turn the last one resumes, or why none can be given. */
async function decideAll(options: {
  backend: ApiBackend;
  entries: readonly AgUiResumeEntry[];
  approver: string | undefined;
}): Promise<{ outcome?: Promise<TurnOutcome>; decided: Approval[]; error?: { code: string; message: string } }> {
  const desk = options.backend.orchestrator.approvals;
  const decided: Approval[] = [];
  let outcome: Promise<TurnOutcome> | undefined;
  for (const entry of options.entries) {
    const answer = await desk.decide({
      id: entry.interruptId,
      ...resumeDecision(entry),
      ...(options.approver === undefined ? {} : { approver: options.approver }),
      wait: true,
    });
    if (answer.type !== "decided") return { decided, error: refusal(entry.interruptId, answer.type) };
    decided.push(answer.approval);
    outcome = answer.outcome ?? outcome;
  }
  return { decided, ...(outcome === undefined ? {} : { outcome }) };
}

export function agUiRoutes(options: { backend: ApiBackend; maxBodyBytes: number; heartbeatMs?: number }) {
  const { backend } = options;
  const timeoutMs = () => backend.orchestrator.swarm.policy.requestTimeoutMs;
  const body = jsonBody({ maxBytes: options.maxBodyBytes, check: checkAgUiInput });
  const log = new SseReplayLog();

  /** The run's stream, each event at its stored position with the id `<key>:<position>`, kept for a resume. */
  const stream = (
    c: Parameters<typeof sseResponse>[0]["c"],
    key: string,
    start: number,
    run: (out: AgUiStreamWriter) => Promise<void>,
    close?: () => void,
  ) => {
    const record = log.open(key, `${key}:`);
    return sseResponse({
      c,
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      run: async (writer) => {
        try {
          await run(await AgUiStreamWriter.open({ start, send: (chunk, at) => record.sendRaw(writer, chunk, at) }));
        } finally {
          close?.();
          record.end();
        }
      },
    });
  };

  /** Streams the turn of `eventId` through `run` until `ended` settles, then finishes the run. */
  const follow = async (options: {
    feed: LiveTurnFeed<TurnOutcome | { code: string; message: string }>;
    out: AgUiStreamWriter;
    run: AgUiRun;
    eventId: string;
    start: number;
    ended: Promise<TurnOutcome | { code: string; message: string }>;
  }) => {
    const { out, run } = options;
    const { value, projection } = await options.feed.run({
      eventId: options.eventId,
      start: options.start,
      emit: async (message, position) => {
        out.moveTo(position);
        await run.take(message);
      },
      ended: options.ended,
    });
    out.moveTo(projection.endPosition);
    await run.finish(value);
  };

  const serve = async (c: Parameters<typeof sseResponse>[0]["c"], agent: string) => {
    const input = c.var.body as AgUiInput;
    if (!backend.orchestrator.swarm.agents.has(agent))
      throw new ApiError({
        status: 404,
        code: "E_AGENT_NOT_FOUND",
        message: `agent ${JSON.stringify(agent)} is not in the swarm`,
      });
    const resumeId = agUiResumeId(c.req.header("last-event-id"));
    if (resumeId !== undefined)
      return resumeAgUiStream({
        c,
        backend,
        log,
        input,
        id: resumeId,
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      });
    const resume = input.resume ?? [];
    if (resume.length > 0) {
      // The same check as POST /v1/approvals/:id, before the stream opens: approve scope, approver = credential.
      const who = checkApprover(undefined);
      if (!who.ok) throw new ApiError({ status: who.status, code: who.code, message: who.message });
      return resumeRun(c, input, resume, who.approver);
    }
    const text = runInputText(input);
    const feed = new LiveTurnFeed<TurnOutcome | { code: string; message: string }>(backend, newTraceId());
    let submitted: Submitted;
    let start: number;
    try {
      start = await newestCursor(backend);
      submitted = backend.orchestrator.submit({
        input: text,
        agent,
        instanceKey: input.threadId,
        traceId: feed.traceId,
        metadata: { via: "ag-ui", runId: input.runId },
        onProgress: feed.onProgress,
      });
      await submitted.accepted;
    } catch (error) {
      feed.close();
      throw error;
    }
    return stream(c, submitted.eventId, start, async (out) => {
      const run = new AgUiRun({ backend, threadId: input.threadId, runId: input.runId, emit: out.emit });
      run.start();
      const ended = awaitOutcome(submitted, timeoutMs()).then((outcome) =>
        outcome instanceof ApiError ? { code: outcome.code, message: outcome.message } : outcome,
      );
      await follow({ feed, out, run, eventId: submitted.eventId, start, ended });
    });
  };

  const resumeRun = async (
    c: Parameters<typeof sseResponse>[0]["c"],
    input: AgUiInput,
    entries: readonly AgUiResumeEntry[],
    approver: string | undefined,
  ) => {
    // The turn the interrupts hold: the run streams it from here on, keyed by its event like the run that stopped.
    const pending = await backend.orchestrator.approvals.pending().catch(() => []);
    const held = pending.find((approval) => entries.some((entry) => entry.interruptId === approval.id));
    const feed =
      held === undefined
        ? undefined
        : new LiveTurnFeed<TurnOutcome | { code: string; message: string }>(backend, held.traceId);
    const start = await newestCursor(backend).catch(() => 0);
    const key = held?.eventId ?? `ag-ui-${crypto.randomUUID()}`;
    return stream(
      c,
      key,
      start,
      async (out) => {
        const run = new AgUiRun({ backend, threadId: input.threadId, runId: input.runId, emit: out.emit });
        run.start();
        const { outcome, error } = await decideAll({ backend, entries, approver });
        out.moveTo({ cursor: start, offset: 1 });
        if (error) return run.fail(error);
        if (outcome === undefined || feed === undefined || held === undefined) {
          // Other approvals of the same turn are still undecided: the run ends on them.
          const left = await backend.orchestrator.approvals.pending().catch(() => []);
          const ids = left.filter((approval) => approval.traceId === held?.traceId).map((approval) => approval.id);
          return await run.finish(stillHeld(ids));
        }
        const ended = Promise.race([outcome, timeoutAfter(timeoutMs())]).then(
          (value) =>
            value ?? {
              code: "E_AGENT_REQUEST_TIMEOUT",
              message: `no reply within ${timeoutMs()} ms; the turn still runs`,
            },
        );
        await follow({ feed, out, run, eventId: held.eventId, start, ended });
      },
      () => feed?.close(),
    );
  };

  return new Hono<ApiEnv>()
    .post("/v1/ag-ui", noQuery("POST /v1/ag-ui"), body, (c) => serve(c, backend.orchestrator.swarm.entryAgent))
    .post(
      "/v1/ag-ui/:agent",
      noQuery("POST /v1/ag-ui/:agent"),
      validator("param", (value) => agentPath(value)),
      body,
      (c) => serve(c, c.req.valid("param").agent),
    );
}

/** An outcome that says the turn still waits for `approvalIds`. */
function stillHeld(approvalIds: string[]): TurnOutcome {
  return {
    status: "awaiting_approval",
    agent: "",
    instanceKey: "",
    eventId: "",
    turnId: "",
    response: "",
    finishReason: "awaiting_approval",
    approvalIds,
  };
}

function timeoutAfter(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref?.());
}
