/**
 * Signals in a cluster (the orchestrator's SignalRouting): a signal sent to any node reaches every turn suspended for
 * it on any node, once, even when the node running the turn died.
 *
 * - **Waits** (bucket `gdn_<swarm>_waits`, no TTL): the node running an instance registers each call of it suspended
 *   for a signal, under `<signal>.<agent>.<instance key>.<approval>` (the approval itself as the value), once the
 *   suspension is durable and again when a node takes the instance over; it removes it once the call is decided.
 *   Any node finds the waits for a signal by its key prefix.
 * - **Mail** (bucket `gdn_<swarm>_signals`, no TTL): sending keeps the signal for each wait under
 *   `<agent>.<instance key>.<approval>` (an atomic create: of two signals for one wait the first is kept, the second
 *   reached nobody), then asks the node holding the instance's lease to apply what its instances' mail holds. The
 *   owner wakes each call (its ApprovalDesk decides it once, durably) and only then removes the mail.
 *
 * The sender answers once the mail is written: that is the durable part. A node that takes an instance over applies
 * its mail as soon as it holds the instance's state; the mail is written before the sender looks for the lease
 * holder, so either the new owner's look at the mail comes after it, or the sender finds that node holding the lease
 * and asks it. An owner that is dead (its lease not lapsed yet) or does not answer leaves the mail for the next one.
 */
import type { KV } from "@nats-io/kv";
import type { SignalDesk, SignalRouting } from "../../orchestrator/approvals/signal-routing.ts";
import type { Approval } from "../../protocol/approval.ts";
import { awaitedSignal } from "../../protocol/suspension.ts";
import { describe } from "../../shared/errors.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import { openBucket } from "../nats/kv-bucket.ts";
import type { RequestOutcome } from "../nats/messenger.ts";
import type { ClusterNames } from "../nats/names.ts";
import { subjectToken } from "../nats/subject-token.ts";

/** A signal kept for one suspended call until its instance's owner applies it. */
interface SignalMail {
  approvalId: string;
  signal: string;
  payload: JsonValue;
  sentAt: number;
  /** The node it was sent to. */
  via: string;
}

export interface ClusterSignalsOptions {
  connection: ClusterConnection;
  names: ClusterNames;
  node: string;
  logger: Logger;
  /** Whether this node runs the instance (its state taken, its events read here). */
  owns(agent: string, instanceKey: string): boolean;
  /** The node holding the instance's lease, if any. */
  holder(agent: string, instanceKey: string): Promise<string | undefined>;
  /** Asks `node` to apply the mail of an instance it runs. */
  ask(node: string, agent: string, instanceKey: string): Promise<RequestOutcome<{ woken: number }>>;
}

export class ClusterSignals implements SignalRouting {
  private desk: SignalDesk | undefined;
  /** Registrations and removals on their way to the waits bucket: a send here looks after them. */
  private readonly writing = new Set<Promise<unknown>>();

  private constructor(
    private readonly waits: KV,
    private readonly mail: KV,
    private readonly options: ClusterSignalsOptions,
  ) {}

  static async open(options: ClusterSignalsOptions): Promise<ClusterSignals> {
    const { connection, names } = options;
    const [waits, mail] = await Promise.all([
      openBucket({ connection, bucket: names.signalWaitBucket, ttlMs: 0, description: "goondan signal waits" }),
      openBucket({ connection, bucket: names.signalMailBucket, ttlMs: 0, description: "goondan signals kept" }),
    ]);
    return new ClusterSignals(waits, mail, options);
  }

  attach(desk: SignalDesk): void {
    this.desk = desk;
  }

  async send(name: string, payload: JsonValue): Promise<Approval[]> {
    await Promise.allSettled([...this.writing]);
    const reached: Approval[] = [];
    const instances = new Map<string, { agent: string; instanceKey: string }>();
    for (const approval of await this.waitsFor(name)) {
      const mail: SignalMail = {
        approvalId: approval.id,
        signal: name,
        payload,
        sentAt: Date.now(),
        via: this.options.node,
      };
      try {
        await this.mail.create(mailKey(approval), JSON.stringify(mail));
      } catch (error) {
        if (await this.mail.get(mailKey(approval)).catch(() => null)) continue; // a signal is kept for it already
        throw error;
      }
      reached.push(approval);
      instances.set(pairOf(approval), { agent: approval.agent, instanceKey: approval.instanceKey });
    }
    await Promise.all([...instances.values()].map(({ agent, instanceKey }) => this.wake(agent, instanceKey)));
    return reached;
  }

  /**
   * Applies the signals kept for the calls of an instance this node runs (asked by a sender, or having just taken
   * the instance over); resolves with how many calls they woke. Nothing when it does not run it (yet).
   */
  async deliverHere(agent: string, instanceKey: string): Promise<number> {
    const desk = this.desk;
    if (desk === undefined || !this.options.owns(agent, instanceKey)) return 0;
    let woken = 0;
    const keys: string[] = [];
    for await (const key of await this.mail.keys(`${subjectToken(agent)}.${subjectToken(instanceKey)}.*`))
      keys.push(key);
    for (const key of keys) {
      const entry = await this.mail.get(key);
      if (entry === null || entry.operation !== "PUT") continue;
      const mail = entry.json<SignalMail>();
      // Decided once, durably (a call decided before, by its deadline or an earlier delivery, is left as it is).
      if (await desk.applySignal(mail.approvalId, mail.signal, mail.payload)) woken++;
      await this.mail.delete(key, { previousSeq: entry.revision }).catch(() => undefined);
    }
    if (woken > 0) this.options.logger.info({ agent, instanceKey, woken }, "applied the signals kept for an instance");
    return woken;
  }

  waiting(approval: Approval): void {
    this.track(this.waits.put(waitKey(approval), JSON.stringify(approval)), approval, "register");
  }

  settled(approval: Approval): void {
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

  /** Has the instance's owner apply its mail now; without an owner that answers, it waits for the next one. */
  private async wake(agent: string, instanceKey: string): Promise<void> {
    const holder = await this.options.holder(agent, instanceKey);
    if (holder === this.options.node) {
      await this.deliverHere(agent, instanceKey);
      return;
    }
    const answer = holder === undefined ? undefined : await this.options.ask(holder, agent, instanceKey);
    if (answer?.status !== "ok")
      this.options.logger.info(
        { agent, instanceKey, holder, status: answer?.status ?? "no owner" },
        "kept a signal for an instance whose owner did not take it; the node that takes it over applies it",
      );
  }
}

const pairOf = (approval: Approval) => `${subjectToken(approval.agent)}.${subjectToken(approval.instanceKey)}`;
const mailKey = (approval: Approval) => `${pairOf(approval)}.${subjectToken(approval.id)}`;
const waitKey = (approval: Approval) => `${subjectToken(awaitedSignal(approval) ?? "")}.${mailKey(approval)}`;
