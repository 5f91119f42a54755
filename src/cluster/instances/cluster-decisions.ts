/**
 * People's decisions in a cluster (`POST /v1/approvals/:id` on any node): a call held for a person is decided once,
 * by the node running its instance, whichever node the decision was sent to, and even when that node died.
 *
 * - **Held calls** (bucket `gdn_<swarm>_approvals`, no TTL, keyed by approval id): the node running an instance
 *   registers each of its calls held for a person once the hold is durable (and again when a node takes the instance
 *   over), with the approval as the value, and removes it once the call is decided. Any node finds it there, also
 *   while its node is dead and no node has taken the instance over yet. One not registered (decided already, or not
 *   registered yet) is looked for in the copies the nodes keep (`find`): the running node's copy first, then one that
 *   says it was decided.
 * - **Deciding**: a call whose instance runs on this node is left to its ApprovalDesk (undefined), so the decision,
 *   its turn's outcome and progress are as on one host. Otherwise the decider is checked as the desk checks it
 *   (`mayDecide`), the decision is kept for the call (held-mail.ts: the first kept for a call wins, a later one is
 *   the conflict answer with it) and the node holding the instance's lease is asked to apply it: its answer is the
 *   decided approval, or the decision that came first. An owner that is dead or does not answer leaves the decision
 *   kept: the caller hears it decided (kept durably) and the node that takes the instance over applies it once.
 */
import type { KV } from "@nats-io/kv";
import { mayDecide, type DecideAnswer, type DecideRequest } from "../../orchestrator/approvals/decide-request.ts";
import type { Approval } from "../../protocol/approval.ts";
import { signalApprover } from "../../protocol/suspension.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import { subjectToken } from "../nats/subject-token.ts";
import type { HeldMail, HeldMailbox } from "./held-mail.ts";

export interface ClusterDecisionsOptions {
  node: string;
  logger: Logger;
  /** Whether this node runs the instance. */
  owns(agent: string, instanceKey: string): boolean;
  /** The cluster's copies of an approval (every node asked): the running node's first, else a decided one. */
  find(approvalId: string): Promise<Approval | undefined>;
}

export class ClusterDecisions {
  constructor(
    private readonly held: KV,
    private readonly mailbox: HeldMailbox,
    private readonly options: ClusterDecisionsOptions,
  ) {}

  /** A call held for a person is durable on this node, which runs its instance. */
  register(approval: Approval): void {
    this.write(this.held.put(subjectToken(approval.id), JSON.stringify(approval)), approval, "register");
  }

  /** The call was decided. */
  unregister(approval: Approval): void {
    this.write(this.held.delete(subjectToken(approval.id)), approval, "remove");
  }

  /** The decision's answer, or undefined when the approval's instance runs here (its desk decides it). */
  async decide(request: DecideRequest): Promise<DecideAnswer | undefined> {
    const approval = (await this.registered(request.id)) ?? (await this.options.find(request.id));
    if (approval === undefined) return { type: "missing" };
    if (approval.decision !== undefined) return { type: "already", approval };
    if (this.options.owns(approval.agent, approval.instanceKey)) return undefined;
    if (!mayDecide(approval, request.decision, request.approver)) return { type: "forbidden", approval };
    const mail: HeldMail = {
      approvalId: approval.id,
      kind: "decision",
      decision: request.decision,
      ...(request.reason === undefined ? {} : { reason: request.reason }),
      ...(request.approver === undefined ? {} : { approver: request.approver }),
      sentAt: Date.now(),
      via: this.options.node,
    };
    if (!(await this.mailbox.keep(approval, mail))) {
      const first = await this.mailbox.kept(approval);
      return { type: "already", approval: first === undefined ? approval : decidedBy(approval, first) };
    }
    const delivered = await this.mailbox.wake(approval.agent, approval.instanceKey);
    const applied = delivered?.decisions?.find((one) => one.approvalId === approval.id);
    if (applied !== undefined) return { type: applied.type, approval: applied.approval };
    this.options.logger.info(
      { approvalId: approval.id, agent: approval.agent, instanceKey: approval.instanceKey, decision: request.decision },
      "approval decision kept for the node that runs its instance next",
    );
    return { type: "decided", approval: decidedBy(approval, mail) };
  }

  private async registered(id: string): Promise<Approval | undefined> {
    const entry = await this.held.get(subjectToken(id)).catch(() => null);
    return entry !== null && entry.operation === "PUT" ? entry.json<Approval>() : undefined;
  }

  private write(write: Promise<unknown>, approval: Approval, what: string): void {
    write.catch((error: unknown) =>
      this.options.logger.warn(
        { approvalId: approval.id, error: describe(error).message },
        `could not ${what} a held approval in the cluster; a node that takes its instance over does it again`,
      ),
    );
  }
}

/** The approval as the kept mail decides it (not applied yet: its owner applies it once it runs the instance). */
function decidedBy(approval: Approval, mail: HeldMail): Approval {
  const decision =
    mail.kind === "decision"
      ? {
          decision: mail.decision,
          decidedAt: mail.sentAt,
          ...(mail.reason === undefined ? {} : { reason: mail.reason }),
          ...(mail.approver === undefined ? {} : { decidedBy: mail.approver }),
        }
      : {
          decision: "approve" as const,
          decidedAt: mail.sentAt,
          reason: JSON.stringify(mail.payload),
          decidedBy: signalApprover(mail.signal),
        };
  return { ...approval, decision };
}
