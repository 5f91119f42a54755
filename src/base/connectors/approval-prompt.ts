/**
 * The `cli` connector's inline approval prompt: a reply that says `awaiting_approval` is followed, for each held
 * call, by what it is (agent, tool, arguments) and `allow? [y/N]`; `y`/`yes` approves, anything else denies (the
 * model reads E_TOOL_DENIED). When the last decision resumes the turn, its reply is what the chat prints next (a
 * later call of the same turn may ask again). The end of the input leaves the calls pending for `goondan approve`.
 * A call the timer tool suspended is not asked about: its time or its signal decides it.
 */
import { isSuspension } from "../../protocol/suspension.ts";
import type { ConnectorApprovals, ConnectorReply } from "../../connector/connector-types.ts";

export interface ApprovalPromptOptions {
  approvals: ConnectorApprovals;
  reply: ConnectorReply;
  /** Writes the question and resolves with the next input line (undefined: the input ended). */
  ask: (question: string) => Promise<string | undefined>;
  write: (text: string) => void;
}

/** How many times one turn may stop again for approvals before the prompt leaves it to `goondan approve`. */
const MAX_ROUNDS = 20;

export async function promptApprovals(options: ApprovalPromptOptions): Promise<ConnectorReply> {
  const { approvals, ask, write } = options;
  let reply = options.reply;
  for (let round = 0; round < MAX_ROUNDS && reply.status === "awaiting_approval"; round += 1) {
    let resumed: ConnectorReply | undefined;
    for (const id of reply.approvalIds ?? []) {
      const approval = await approvals.get(id).catch(() => undefined);
      // A call suspended for a time or a signal (the timer tool) is nobody's to decide.
      if (approval !== undefined && isSuspension(approval)) continue;
      const what =
        approval === undefined
          ? `tool call ${id}`
          : `${approval.agent} wants to run ${approval.toolName} ${clip(JSON.stringify(approval.arguments))}`;
      const answer = await ask(`${what}\nallow? [y/N] `);
      if (answer === undefined) return reply;
      const decision = /^y(es)?$/i.test(answer.trim()) ? "approve" : "deny";
      try {
        const decided = await approvals.decide(
          id,
          decision === "deny" ? { decision, reason: "denied at the terminal" } : { decision },
        );
        resumed = decided.outcome ?? resumed;
      } catch (error) {
        const code =
          typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : "E_CLI";
        write(`error [${code}]: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    if (resumed === undefined) return reply;
    reply = resumed;
  }
  return reply;
}

const clip = (text: string): string => (text.length > 200 ? `${text.slice(0, 199)}…` : text);
