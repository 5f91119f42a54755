/**
 * What is kept for a held call until its instance's owner applies it (bucket `gdn_<swarm>_signals`, no TTL, a key
 * `<agent>.<instance key>.<approval>` per call): a signal sent to it (cluster-signals.ts) or a person's decision on it
 * (cluster-decisions.ts). Keeping is an atomic create, so of two sent for one call the first is kept and the second
 * reached nobody; a call is decided once, whichever kind came first.
 *
 * Whoever kept something asks the node holding the instance's lease to apply what its instances' mail holds
 * (`wake`). The owner applies each through its ApprovalDesk (which decides a call once, durably) and only then
 * drops the mail; it reports each decision it applied, so the node that kept it can answer its caller with the
 * decided approval, or with the earlier decision that won. An owner that is dead (its lease not lapsed yet) or does
 * not answer leaves the mail for the next one: a node that takes an instance over applies it as soon as it holds the
 * instance's state (`deliverHere`).
 */
import type { KV } from "@nats-io/kv";
import type { SignalDesk } from "../../orchestrator/approvals/signal-routing.ts";
import type { Approval } from "../../protocol/approval.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { Logger } from "../../shared/logger.ts";
import type { RequestOutcome } from "../nats/messenger.ts";
import { subjectToken } from "../nats/subject-token.ts";

/** A signal or a person's decision kept for one held call. */
export type HeldMail =
  | { approvalId: string; kind?: "signal"; signal: string; payload: JsonValue; sentAt: number; via: string }
  | {
      approvalId: string;
      kind: "decision";
      decision: "approve" | "deny";
      reason?: string;
      approver?: string;
      sentAt: number;
      /** The node it was sent to. */
      via: string;
    };

/** A person's decision the owner applied from the mail: `decided` by it, or `already` decided before. */
export interface AppliedDecision {
  approvalId: string;
  type: "decided" | "already";
  approval: Approval;
}

/** What an owner applied from its instance's mail: how many calls it woke, and each person's decision it applied. */
export interface Delivered {
  woken: number;
  decisions?: AppliedDecision[];
}

export interface HeldMailboxOptions {
  node: string;
  logger: Logger;
  /** Whether this node runs the instance (its state taken, its events read here). */
  owns(agent: string, instanceKey: string): boolean;
  /** The node holding the instance's lease, if any. */
  holder(agent: string, instanceKey: string): Promise<string | undefined>;
  /** Asks `node` to apply the mail of an instance it runs. */
  ask(node: string, agent: string, instanceKey: string): Promise<RequestOutcome<Delivered>>;
}

export class HeldMailbox {
  private desk: SignalDesk | undefined;

  constructor(
    private readonly kv: KV,
    private readonly options: HeldMailboxOptions,
  ) {}

  attach(desk: SignalDesk): void {
    this.desk = desk;
  }

  /** Keeps `mail` for the call; false when something is kept for it already (the first one wins). */
  async keep(approval: Approval, mail: HeldMail): Promise<boolean> {
    try {
      await this.kv.create(mailKey(approval), JSON.stringify(mail));
      return true;
    } catch (error) {
      if (await this.kept(approval)) return false;
      throw error;
    }
  }

  /** What is kept for the call, if anything. */
  async kept(approval: Pick<Approval, "agent" | "instanceKey" | "id">): Promise<HeldMail | undefined> {
    const entry = await this.kv.get(mailKey(approval)).catch(() => null);
    return entry !== null && entry.operation === "PUT" ? entry.json<HeldMail>() : undefined;
  }

  /** What is kept for the call `approvalId` of whichever instance. */
  async keptFor(approvalId: string): Promise<HeldMail | undefined> {
    for await (const key of await this.kv.keys(`*.*.${subjectToken(approvalId)}`)) {
      const entry = await this.kv.get(key).catch(() => null);
      if (entry !== null && entry.operation === "PUT") return entry.json<HeldMail>();
    }
    return undefined;
  }

  /**
   * Applies what is kept for the calls of an instance this node runs (asked by a sender, or having just taken the
   * instance over). Nothing when it does not run it (yet).
   */
  async deliverHere(agent: string, instanceKey: string): Promise<Delivered> {
    const desk = this.desk;
    if (desk === undefined || !this.options.owns(agent, instanceKey)) return { woken: 0 };
    let woken = 0;
    const decisions: AppliedDecision[] = [];
    const keys: string[] = [];
    for await (const key of await this.kv.keys(`${subjectToken(agent)}.${subjectToken(instanceKey)}.*`)) keys.push(key);
    for (const key of keys) {
      const entry = await this.kv.get(key);
      if (entry === null || entry.operation !== "PUT") continue;
      const mail = entry.json<HeldMail>();
      // Decided once, durably (a call decided before, by its deadline or an earlier delivery, is left as it is).
      if (mail.kind === "decision") {
        const answer = await desk.applyDecision({
          id: mail.approvalId,
          decision: mail.decision,
          ...(mail.reason === undefined ? {} : { reason: mail.reason }),
          ...(mail.approver === undefined ? {} : { approver: mail.approver }),
        });
        if (answer.type === "decided") woken++;
        if (answer.type === "decided" || answer.type === "already")
          decisions.push({ approvalId: mail.approvalId, type: answer.type, approval: answer.approval });
      } else if (await desk.applySignal(mail.approvalId, mail.signal, mail.payload)) woken++;
      await this.kv.delete(key, { previousSeq: entry.revision }).catch(() => undefined);
    }
    if (woken > 0)
      this.options.logger.info({ agent, instanceKey, woken }, "applied the signals and decisions kept for an instance");
    return { woken, ...(decisions.length === 0 ? {} : { decisions }) };
  }

  /**
   * Has the instance's owner apply its mail now: what it applied, or undefined when no owner took it (it waits for
   * the next one).
   */
  async wake(agent: string, instanceKey: string): Promise<Delivered | undefined> {
    const holder = await this.options.holder(agent, instanceKey);
    if (holder === this.options.node) return this.deliverHere(agent, instanceKey);
    const answer = holder === undefined ? undefined : await this.options.ask(holder, agent, instanceKey);
    if (answer?.status === "ok") return answer.value;
    this.options.logger.info(
      { agent, instanceKey, holder, status: answer?.status ?? "no owner" },
      "kept a signal or decision for an instance whose owner did not take it; the node that takes it over applies it",
    );
    return undefined;
  }
}

const mailKey = (approval: Pick<Approval, "agent" | "instanceKey" | "id">) =>
  `${subjectToken(approval.agent)}.${subjectToken(approval.instanceKey)}.${subjectToken(approval.id)}`;
