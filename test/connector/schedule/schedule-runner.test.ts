/**
 * The ScheduleRunner on a manual clock, against an inbox that keeps the first accept of an id (as the store does):
 * ticks fire once each with stable ids, a restart across due ticks follows each catch-up mode, a refused accept is
 * tried again from the same tick, and a tick fired by hand leaves the schedule's record alone. Every test counts the
 * ticks accepted against the ticks due: none lost, none twice.
 */
import { describe, expect, it } from "bun:test";
import { readScheduleSettings } from "../../../src/config/schedule-settings.ts";
import type { ConnectorIngestRequest } from "../../../src/connector/host/connector-run-spec.ts";
import { ScheduleRunner, type TickReport } from "../../../src/connector/schedule/schedule-runner.ts";
import { tickTimeOf, type ScheduleSpec } from "../../../src/connector/schedule/tick-event.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";

const START = Date.UTC(2027, 0, 4, 8, 59, 55); // a Monday, five seconds before 09:00 UTC

function specOf(config: Record<string, unknown>): ScheduleSpec {
  const { settings, problems } = readScheduleSettings(config);
  if (settings === undefined) throw new Error(JSON.stringify(problems));
  return {
    connection: "digest",
    settings,
    rules: [{ match: { event: "tick" }, route: { agentRef: { kind: "Agent", name: "writer" }, instanceKey: "daily" } }],
    entryAgent: "writer",
    swarmInstanceKey: "s",
  };
}

/** An inbox keeping the first accept of each id, like Store.accept; `refuse` makes the next accepts throw. */
class Inbox {
  readonly accepted = new Map<string, ConnectorIngestRequest>();
  attempts = 0;
  refuse = 0;

  ingest = async (request: ConnectorIngestRequest) => {
    this.attempts += 1;
    if (this.refuse > 0) {
      this.refuse -= 1;
      throw Object.assign(new Error("store busy"), { code: "E_TEST_REFUSED" });
    }
    const eventId = request.eventId as string;
    if (this.accepted.has(eventId)) return { eventId, duplicate: true };
    this.accepted.set(eventId, request);
    return { eventId };
  };

  lastTick = async (connection: string) =>
    [...this.accepted.keys()]
      .map((id) => tickTimeOf(connection, id))
      .filter((at): at is number => at !== undefined)
      .sort((a, b) => a - b)
      .at(-1);

  tickTimes(): number[] {
    return [...this.accepted.keys()].map((id) => tickTimeOf("digest", id)).filter((at) => at !== undefined) as number[];
  }
}

function runnerOf(options: { clock: ManualClock; inbox: Inbox; spec: ScheduleSpec; reports?: TickReport[] }) {
  return new ScheduleRunner({
    specs: [options.spec],
    ingest: options.inbox.ingest,
    lastTick: options.inbox.lastTick,
    onTick: (report) => options.reports?.push(report),
    clock: options.clock,
    logger: silentLogger(),
  });
}

/** Moves the manual clock in steps, letting the runner accept what came due at each. */
async function advance(clock: ManualClock, runner: ScheduleRunner, ms: number, step = 1000): Promise<void> {
  for (let moved = 0; moved < ms; moved += step) {
    clock.advance(Math.min(step, ms - moved));
    await runner.settled();
  }
}

describe("ScheduleRunner", () => {
  it("fires each due tick of an interval once, with an id made of the Connection and the tick time", async () => {
    const clock = new ManualClock(START);
    const inbox = new Inbox();
    const runner = runnerOf({ clock, inbox, spec: specOf({ every: "10s", input: "tick {{tickAt}}" }) });
    await runner.start();
    await advance(clock, runner, 35_000);
    expect(inbox.tickTimes()).toEqual([START + 5000, START + 15_000, START + 25_000, START + 35_000]);
    expect([...inbox.accepted.keys()][0]).toBe(`tick-digest-${START + 5000}`);
    expect(inbox.accepted.get(`tick-digest-${START + 5000}`)).toMatchObject({
      agent: "writer",
      instanceKey: "daily",
      input: "tick 2027-01-04T09:00:00.000Z",
      type: "connector.tick",
    });
    expect(inbox.attempts).toBe(4);
    await runner.stop();
  });

  it("reads cron fields and the template's date and time in the schedule's time zone", async () => {
    const clock = new ManualClock(START);
    const inbox = new Inbox();
    // 18:00 in Seoul is 09:00 UTC.
    const spec = specOf({ cron: "0 18 * * 1-5", timezone: "Asia/Seoul", input: "digest {{date}} {{time}}" });
    const runner = runnerOf({ clock, inbox, spec });
    await runner.start();
    expect(runner.statuses()[0]?.nextAt).toBe("2027-01-04T09:00:00.000Z");
    await advance(clock, runner, 10_000);
    expect(inbox.tickTimes()).toEqual([Date.UTC(2027, 0, 4, 9)]);
    expect([...inbox.accepted.values()][0]?.input).toBe("digest 2027-01-04 18:00:00");
    expect(runner.statuses()[0]?.nextAt).toBe("2027-01-05T09:00:00.000Z");
    await runner.stop();
  });

  const downtime: [mode: string, extra: Record<string, unknown>, fired: number, missed: number][] = [
    ["none", { catchUp: "none" }, 0, 5],
    ["last", { catchUp: "last" }, 1, 4],
    ["all", { catchUp: "all", catchUpMax: 3 }, 3, 2],
  ];
  for (const [mode, extra, fired, missed] of downtime) {
    it(`after a restart across five due ticks, catchUp ${mode} fires ${fired} of them and the next on time`, async () => {
      const clock = new ManualClock(START);
      const inbox = new Inbox();
      const spec = specOf({ every: "10s", ...extra });
      const before = runnerOf({ clock, inbox, spec });
      await before.start();
      await advance(clock, before, 6000); // the tick at 09:00:00
      await before.stop();
      expect(inbox.tickTimes()).toEqual([START + 5000]);
      clock.advance(52_000); // down across 09:00:10 … 09:00:50
      const reports: TickReport[] = [];
      const after = runnerOf({ clock, inbox, spec, reports });
      await after.start();
      await after.settled();
      const caughtUp = [START + 15_000, START + 25_000, START + 35_000, START + 45_000, START + 55_000].slice(
        5 - fired,
      );
      expect(inbox.tickTimes()).toEqual([START + 5000, ...caughtUp]);
      expect(after.statuses()[0]).toMatchObject({ fired, missed, late: fired });
      await advance(clock, after, 10_000);
      expect(inbox.tickTimes()).toEqual([START + 5000, ...caughtUp, START + 65_000]);
      expect(reports.filter((report) => report.type === "fired" && !report.late)).toHaveLength(1);
      expect(inbox.attempts).toBe(inbox.accepted.size); // nothing offered twice
      await after.stop();
    });
  }

  it("does not fire again a tick the inbox accepted before a restart", async () => {
    const clock = new ManualClock(START);
    const inbox = new Inbox();
    const spec = specOf({ every: "10s", catchUp: "all" });
    const first = runnerOf({ clock, inbox, spec });
    await first.start();
    await advance(clock, first, 6000);
    await first.stop();
    const second = runnerOf({ clock, inbox, spec });
    await second.start();
    await advance(clock, second, 3000);
    expect(inbox.tickTimes()).toEqual([START + 5000]);
    expect(second.statuses()[0]).toMatchObject({
      fired: 0,
      missed: 0,
      lastTickAt: new Date(START + 5000).toISOString(),
    });
    await second.stop();
  });

  it("starts a schedule with no accepted tick from now, firing nothing of the past", async () => {
    const clock = new ManualClock(START);
    const inbox = new Inbox();
    const runner = runnerOf({ clock, inbox, spec: specOf({ every: "1s", catchUp: "all" }) });
    await runner.start();
    await runner.settled();
    expect(inbox.accepted.size).toBe(0);
    await runner.stop();
  });

  it("tries a refused accept again from the same tick, losing none and repeating none", async () => {
    const clock = new ManualClock(START);
    const inbox = new Inbox();
    const runner = runnerOf({ clock, inbox, spec: specOf({ every: "10s" }) });
    await runner.start();
    inbox.refuse = 2;
    await advance(clock, runner, 20_000);
    expect(inbox.tickTimes()).toEqual([START + 5000, START + 15_000]);
    expect(inbox.attempts).toBe(4);
    await runner.stop();
  });

  it("fires a tick by hand under its own id, leaving the schedule's record alone", async () => {
    const clock = new ManualClock(START);
    const inbox = new Inbox();
    const runner = runnerOf({ clock, inbox, spec: specOf({ every: "1h" }) });
    await runner.start();
    expect(await runner.runNow("digest")).toEqual({ eventId: `run-digest-${START}` });
    expect(await runner.runNow("nightly")).toBeUndefined();
    expect(await inbox.lastTick("digest")).toBeUndefined();
    expect(inbox.accepted.get(`run-digest-${START}`)?.metadata).toMatchObject({ manual: true });
    await runner.stop();
  });
});
