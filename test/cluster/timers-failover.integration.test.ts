/**
 * Durable timers across a node failover, with two real `goondan run --cluster` nodes on the local NATS (TTL 3 s) and
 * the loopback LLM (timer-cluster.ts). The node that owns the suspended instance is killed with SIGKILL before the
 * time comes; the survivor takes the instance over and must wake it once, at about its time:
 *   - a turn suspended in `timer__sleep`: its result shown to the model once, the turn finished;
 *   - a message for later (`agents__schedule`) an instance sent itself on the node then killed: it starts one turn,
 *     at its time, on the survivor (and, while it waits, the instance's other events are not held up behind it);
 *   - a turn waiting in `timer__waitForSignal` whose timeout comes after the takeover: E_SIGNAL_TIMEOUT once.
 * Each reports lost and duplicated wake-ups (both must be 0).
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { natsAvailable } from "../helpers/nats.ts";
import {
  answered,
  claimedBy,
  kill,
  ownerOf,
  pendingTimer,
  resultsShown,
  submit,
  timerCluster,
  turnsStarted,
} from "./timer-cluster.ts";

const defer = useCleanups();
const TEST_TIMEOUT_MS = 240_000;

describe.skipIf(!natsAvailable)("durable timers across a node failover", () => {
  it(
    "a timer__sleep on a killed node fires once on the node that takes its instance over",
    async () => {
      const cluster = await timerCluster(defer, "timer-kill");
      const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];
      const eventId = await submit((nodes[0] as (typeof nodes)[number]).base, "sleep 12 nap", "nap");
      const owner = await claimedBy(nodes, "nap");
      const survivor = nodes.find((node) => node !== owner) as (typeof nodes)[number];
      // The turn is suspended, durably, before its node dies.
      const dueAt = Date.parse((await pendingTimer(owner.base, "nap")).until ?? "");
      await kill(owner);
      expect(Date.now()).toBeLessThan(dueAt);
      await until(() => ownerOf(nodes, "nap") === survivor, { timeoutMs: 60_000, intervalMs: 200 });

      const outcome = await answered(survivor.base, eventId);
      expect(outcome.state).toBe("ok");
      expect(outcome.response).toContain("wokeAt");
      // Anything late would show here: give a duplicate time to appear.
      await Bun.sleep(2000);
      const shown = resultsShown(cluster.seen, "sleep 12 nap");
      const lateMs = (shown[0]?.at ?? 0) - dueAt;
      console.log(
        `timer across kill -9 of its node: shown ${shown.length} time(s), ${lateMs} ms after its time; lost ${shown.length === 0 ? 1 : 0}, duplicated ${Math.max(0, shown.length - 1)}`,
      );
      expect(shown.length).toBe(1);
      expect(lateMs).toBeGreaterThanOrEqual(-1000);
      expect(lateMs).toBeLessThan(15_000);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "an agents__schedule sent on a node killed before it is due arrives once, from the survivor",
    async () => {
      const cluster = await timerCluster(defer, "timer-later");
      const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];
      const sender = await submit((nodes[0] as (typeof nodes)[number]).base, "later 12 memo", "reminded-memo");
      expect((await answered((nodes[0] as (typeof nodes)[number]).base, sender)).state).toBe("ok");
      const scheduledAt = Date.now();
      // The instance sent the message to itself: it was made on the node that runs it, which dies before its time.
      const target = await claimedBy(nodes, "reminded-memo");
      const survivor = nodes.find((node) => node !== target) as (typeof nodes)[number];
      await kill(target);
      expect(turnsStarted(cluster.seen, "reminder memo")).toEqual([]);
      await until(() => turnsStarted(cluster.seen, "reminder memo").length > 0, { timeoutMs: 90_000, intervalMs: 200 });
      await Bun.sleep(3000);
      const started = turnsStarted(cluster.seen, "reminder memo");
      console.log(
        `agents__schedule across kill -9 of its node: delivered ${started.length} time(s), ${(started[0]?.at ?? 0) - scheduledAt - 12_000} ms after its time; lost ${started.length === 0 ? 1 : 0}, duplicated ${Math.max(0, started.length - 1)}`,
      );
      expect(started.length).toBe(1);
      expect((started[0]?.at ?? 0) - scheduledAt).toBeGreaterThanOrEqual(11_000);
      expect(ownerOf([survivor], "reminded-memo")).toBe(survivor);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a message for later does not hold up the other events of its instance until it is due",
    async () => {
      const cluster = await timerCluster(defer, "timer-later-queue");
      const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];
      const base = (nodes[0] as (typeof nodes)[number]).base;
      // The instance sends itself a message for in 30 s, then gets another event at once.
      expect((await answered(base, await submit(base, "later 30 self", "reminded-self"))).state).toBe("ok");
      const sentAt = Date.now();
      const next = await submit(base, "hello there now", "reminded-self");
      expect((await answered(base, next, 60_000)).response).toContain("nothing to do");
      const tookMs = Date.now() - sentAt;
      console.log(`an event behind a message for later due in 30 s: answered after ${tookMs} ms`);
      expect(tookMs).toBeLessThan(20_000);
      expect(turnsStarted(cluster.seen, "reminder self")).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a signal wait's timeout on a taken-over instance fires once",
    async () => {
      const cluster = await timerCluster(defer, "timer-timeout");
      const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];
      const eventId = await submit((nodes[1] as (typeof nodes)[number]).base, "signal never 12 lapse", "lapse");
      const owner = await claimedBy(nodes, "lapse");
      const survivor = nodes.find((node) => node !== owner) as (typeof nodes)[number];
      await pendingTimer(owner.base, "lapse");
      await kill(owner);
      const outcome = await answered(survivor.base, eventId);
      expect(outcome.response).toContain("E_SIGNAL_TIMEOUT");
      await Bun.sleep(2000);
      const shown = resultsShown(cluster.seen, "signal never 12 lapse");
      console.log(
        `signal timeout across kill -9 of its node: shown ${shown.length} time(s); lost ${shown.length === 0 ? 1 : 0}, duplicated ${Math.max(0, shown.length - 1)}`,
      );
      expect(shown.length).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});
