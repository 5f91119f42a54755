/**
 * Signals and people's decisions in a cluster (the orchestrator's SignalRouting): a signal sent to any node reaches
 * every turn suspended for it on any node, once, and a decision made on any node reaches the node running the held
 * call (cluster-decisions.ts), once, even when the node running the turn died.
 *
 * - **Waits** (bucket `gdn_<swarm>_waits`, no TTL): the node running an instance registers each call of it suspended
 *   for a signal, under `<signal>.<agent>.<instance key>.<approval>` (the approval itself as the value), once the
 *   suspension is durable and again when a node takes the instance over; it removes it once the call is decided.
 *   Any node finds the waits for a signal by its key prefix. A call held for a person is registered by its id in
 *   `gdn_<swarm>_approvals` the same way (cluster-decisions.ts).
 * - **Mail** (held-mail.ts, bucket `gdn_<swarm>_signals`): sending keeps the signal for each wait (of two signals
 *   for one wait the first is kept, the second reached nobody), then asks the node holding the instance's lease to
 *   apply what its instances' mail holds. The owner wakes each call (its ApprovalDesk decides it once, durably) and
 *   only then removes the mail.
 *
 * The sender answers once the mail is written: that is the durable part. A node that takes an instance over applies
 * its mail as soon as it holds the instance's state; the mail is written before the sender looks for the lease
 * holder, so either the new owner's look at the mail comes after it, or the sender finds that node holding the lease
 * and asks it. An owner that is dead (its lease not lapsed yet) or does not answer leaves the mail for the next one.
 */
import type { KV } from "@nats-io/kv";
import type { DecideAnswer, DecideRequest } from "../../orchestrator/approvals/decide-request.ts";
import type { SignalDesk, SignalRouting } from "../../orchestrator/approvals/signal-routing.ts";
import type { Approval } from "../../protocol/approval.ts";
import { awaitedSignal } from "../../protocol/suspension.ts";
import { describe } from "../../shared/errors.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { openBucket } from "../nats/kv-bucket.ts";
import { subjectToken } from "../nats/subject-token.ts";
import type { ClusterNames } from "../nats/names.ts";
import { ClusterDecisions } from "./cluster-decisions.ts";
import { HeldMailbox, type Delivered, type HeldMailboxOptions } from "./held-mail.ts";

export interface ClusterSignalsOptions extends HeldMailboxOptions {
  connection: ClusterConnection;
  names: ClusterNames;
  /** The cluster's copies of an approval not registered as held (the other nodes asked): cluster-decisions.ts. */
  find(approvalId: string): Promise<Approval | undefined>;
}

export class ClusterSignals implements SignalRouting {
  /** Registrations and removals on their way to the waits bucket: a send here looks after them. */
  private readonly writing = new Set<Promise<unknown>>();

  private constructor(
    private readonly waits: KV,
    private readonly mailbox: HeldMailbox,
    private readonly decisions: ClusterDecisions,
    private readonly options: ClusterSignalsOptions,
  ) {}

  static async open(options: ClusterSignalsOptions): Promise<ClusterSignals> {
    const { connection, names } = options;
    const [waits, mail, approvals] = await Promise.all([
      openBucket({ connection, bucket: names.signalWaitBucket, ttlMs: 0, description: "goondan signal waits" }),
      openBucket({ connection, bucket: names.signalMailBucket, ttlMs: 0, description: "goondan signals kept" }),
      openBucket({ connection, bucket: names.approvalBucket, ttlMs: 0, description: "goondan approvals held" }),
    ]);
    const mailbox = new HeldMailbox(mail, options);
    const decisions = new ClusterDecisions(approvals, mailbox, options);
    return new ClusterSignals(waits, mailbox, decisions, options);
  }

  attach(desk: SignalDesk): void {
    this.mailbox.attach(desk);
  }

  async send(name: string, payload: JsonValue): Promise<Approval[]> {
    await Promise.allSettled([...this.writing]);
    const reached: Approval[] = [];
    const instances = new Map<string, { agent: string; instanceKey: string }>();
    for (const approval of await this.waitsFor(name)) {
      const mail = { approvalId: approval.id, signal: name, payload, sentAt: Date.now(), via: this.options.node };
      if (!(await this.mailbox.keep(approval, mail))) continue; // a signal is kept for it already
      reached.push(approval);
      instances.set(pairOf(approval), { agent: approval.agent, instanceKey: approval.instanceKey });
    }
    await Promise.all([...instances.values()].map(({ agent, instanceKey }) => this.mailbox.wake(agent, instanceKey)));
    return reached;
  }

  decide(request: DecideRequest): Promise<DecideAnswer | undefined> {
    return this.decisions.decide(request);
  }

  /**
   * Applies the signals and decisions kept for the calls of an instance this node runs (asked by a sender, or having
   * just taken the instance over). Nothing when it does not run it (yet).
   */
  deliverHere(agent: string, instanceKey: string): Promise<Delivered> {
    return this.mailbox.deliverHere(agent, instanceKey);
  }

  async keptInTime(approval: Approval): Promise<boolean> {
    const mail = await this.mailbox.kept(approval);
    if (mail === undefined || (approval.expiresAt !== undefined && mail.sentAt > approval.expiresAt)) return false;
    await this.mailbox.deliverHere(approval.agent, approval.instanceKey);
    return true;
  }

  waiting(approval: Approval): void {
    if (awaitedSignal(approval) === undefined) return this.decisions.register(approval);
    this.track(this.waits.put(waitKey(approval), JSON.stringify(approval)), approval, "register");
  }

  settled(approval: Approval): void {
    if (awaitedSignal(approval) === undefined) return this.decisions.unregister(approval);
    this.track(this.waits.delete(waitKey(approval)), approval, "remove");
  }

  private track(write: Promise<unknown>, approval: Approval, what: string): void {
    const tracked = write.catch((error: unknown) =>
      this.options.logger.warn(
        { approvalId: approval.id, signal: awaitedSignal(approval), error: describe(error).message },
        `could not ${what} a signal wait in the cluster; a node that takes its instance over does it again`,
      ),
    );
    this.writing.add(tracked);
    void tracked.finally(() => this.writing.delete(tracked));
  }

  private async waitsFor(name: string): Promise<Approval[]> {
    const keys: string[] = [];
    for await (const key of await this.waits.keys(`${subjectToken(name)}.>`)) keys.push(key);
    const found: Approval[] = [];
    for (const key of keys) {
      const entry = await this.waits.get(key);
      if (entry !== null && entry.operation === "PUT") found.push(entry.json<Approval>());
    }
    return found;
  }
}

const pairOf = (approval: Approval) => `${subjectToken(approval.agent)}.${subjectToken(approval.instanceKey)}`;
const waitKey = (approval: Approval) =>
  `${subjectToken(awaitedSignal(approval) ?? "")}.${pairOf(approval)}.${subjectToken(approval.id)}`;
