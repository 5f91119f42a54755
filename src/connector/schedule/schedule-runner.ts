/**
 * The swarm's schedules: for each Connection of the built-in `schedule` connector, the next due tick is armed on
 * the clock and, when due, accepted as one event through the connector ingest with a stable id made from the
 * Connection and the tick time (tick-event.ts). The store keeps that event in its one idempotent accept, so the
 * inbox row is the durable record of the tick: at start the runner asks for the newest one (`lastTick`) and
 * neither repeats it nor skips what came after. Ticks that came due while the daemon was down (or while the event
 * loop stood still) follow the Connection's `catchUp`: `none` skips them, `last` fires the newest, `all` the newest
 * `catchUpMax`; a tick that comes due while it runs always fires. Ticks run one at a time per schedule, and a
 * refused accept is tried again a second later from the same tick, so none is lost and none fires twice.
 */
import type { Clock } from "../../shared/clock.ts";
import { OneShotTimer } from "../../shared/clock.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ConnectorIngest } from "../host/connector-run-spec.ts";
import { tickEvent, type ScheduleSpec } from "./tick-event.ts";
import { tickTimes, type TickTimes } from "./tick-times.ts";

/** A tick that fires later than this after its due time counts as late (a caught-up one always does). */
export const LATE_AFTER_MS = 1000;
const RETRY_MS = 1000;

/** What a tick came to, for metrics: fired (on time or late), or missed (skipped by catch-up, or routed nowhere). */
export type TickReport =
  | { connection: string; type: "fired"; late: boolean }
  | { connection: string; type: "missed"; count: number };

export interface ScheduleStatus {
  connection: string;
  cron?: string;
  every?: string;
  timezone: string;
  catchUp: string;
  /** ISO time of the next due tick, if any. */
  nextAt?: string;
  /** The newest tick accepted, and its event. */
  lastTickAt?: string;
  lastEventId?: string;
  /** In a cluster, the node that fires this schedule's ticks. */
  node?: string;
  /** Since the daemon started: ticks accepted (of which `caughtUp` after a stop and `late` past a second), and skipped. */
  fired: number;
  caughtUp: number;
  missed: number;
  late: number;
}

/** A schedule as `GET /v1/schedules` and `goondan schedules` show it: its status and its newest tick's state. */
export interface ScheduleRow extends ScheduleStatus {
  /** `accepted`, `running`, `ok` or `error`, when a tick was accepted. */
  lastResult?: string;
}

export interface ScheduleRunnerOptions {
  specs: readonly ScheduleSpec[];
  /** Accepts a tick's event (`eventId` set): resolves once durable, `duplicate` when the store held it already. */
  ingest: ConnectorIngest;
  /** The due time of the newest tick the store accepted for a Connection. */
  lastTick(connection: string): Promise<number | undefined>;
  /** Default: none. */
  onTick?: (report: TickReport) => void;
  /** A tick of the schedule is accepted (or was already): where a cluster records it for the next holder. */
  onAccepted?: (connection: string, at: number) => void;
  clock: Clock;
  logger: Logger;
}

interface Running {
  spec: ScheduleSpec;
  times: TickTimes;
  timer: OneShotTimer;
  /** Every tick up to here is accepted or skipped. */
  cursor: number;
  startedAt: number;
  status: ScheduleStatus;
  chain: Promise<void>;
}

export class ScheduleRunner {
  private readonly running = new Map<string, Running>();
  private stopped = false;

  constructor(private readonly options: ScheduleRunnerOptions) {}

  /** Reads each schedule's newest tick, fires what catch-up asks for, and arms the next tick. */
  async start(): Promise<void> {
    await Promise.all(this.options.specs.map((spec) => this.startOne(spec)));
  }

  statuses(): ScheduleStatus[] {
    return [...this.running.values()].map((run) => ({ ...run.status }));
  }

  /** Fires one tick of `connection` now, outside its schedule (`goondan schedules run`); undefined: no such schedule. */
  async runNow(connection: string): Promise<{ eventId: string } | undefined> {
    const run = this.running.get(connection);
    if (run === undefined) return undefined;
    const event = tickEvent({ spec: run.spec, at: this.options.clock.now(), manual: true });
    if (event === undefined) return undefined;
    await this.options.ingest(event);
    return { eventId: event.eventId as string };
  }

  /** Resolves once every tick due so far is accepted or skipped (the next ones armed). */
  async settled(): Promise<void> {
    await Promise.all([...this.running.values()].map((run) => run.chain));
  }

  /** Arms nothing more; resolves once the tick being accepted, if any, is. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const run of this.running.values()) run.timer.clear();
    await this.settled();
  }

  private async startOne(spec: ScheduleSpec): Promise<void> {
    const now = this.options.clock.now();
    const last = await this.options.lastTick(spec.connection);
    const { settings } = spec;
    const run: Running = {
      spec,
      times: tickTimes(settings),
      timer: new OneShotTimer(this.options.clock),
      cursor: last ?? now,
      startedAt: now,
      status: {
        connection: spec.connection,
        ...(settings.cron === undefined ? {} : { cron: settings.cron }),
        ...(settings.every === undefined ? {} : { every: settings.every }),
        timezone: settings.timezone,
        catchUp: settings.catchUp,
        ...(last === undefined ? {} : { lastTickAt: new Date(last).toISOString() }),
        fired: 0,
        caughtUp: 0,
        missed: 0,
        late: 0,
      },
      chain: Promise.resolve(),
    };
    this.running.set(spec.connection, run);
    this.enqueue(run);
  }

  private enqueue(run: Running): void {
    run.chain = run.chain.then(() => this.step(run));
  }

  /** Accepts every tick due by now that catch-up keeps, then arms the next one. */
  private async step(run: Running): Promise<void> {
    if (this.stopped) return;
    const now = this.options.clock.now();
    const { settings } = run.spec;
    const due = run.times.between(run.cursor, now, Math.max(settings.catchUpMax, 1));
    const current = due.newest.at(-1);
    // A tick that came due while running fires; older ones (down, or a stalled loop) are caught up by policy.
    const onTime = current !== undefined && current >= run.startedAt ? current : undefined;
    const missed = onTime === undefined ? due.newest : due.newest.slice(0, -1);
    const missedTotal = due.total - (onTime === undefined ? 0 : 1);
    const caughtUp =
      settings.catchUp === "all" ? missed : settings.catchUp === "last" && missed.length > 0 ? missed.slice(-1) : [];
    if (missedTotal > caughtUp.length) this.missed(run, missedTotal - caughtUp.length);
    for (const at of caughtUp) {
      if (!(await this.fire(run, at, true))) return this.retry(run);
      run.status.caughtUp += 1;
    }
    if (onTime !== undefined && !(await this.fire(run, onTime, now - onTime > LATE_AFTER_MS))) return this.retry(run);
    if (current !== undefined) run.cursor = Math.max(run.cursor, current);
    this.arm(run);
  }

  private async fire(run: Running, at: number, late: boolean): Promise<boolean> {
    const event = tickEvent({ spec: run.spec, at });
    if (event === undefined) {
      this.options.logger.warn({ connection: run.spec.connection }, "no ingress rule matches the tick; it is skipped");
      this.missed(run, 1);
      run.cursor = at;
      return true;
    }
    try {
      const accepted = await this.options.ingest(event);
      run.cursor = at;
      run.status.lastTickAt = new Date(at).toISOString();
      run.status.lastEventId = accepted.eventId;
      this.options.onAccepted?.(run.spec.connection, at);
      if (accepted.duplicate) return true;
      run.status.fired += 1;
      if (late) run.status.late += 1;
      this.options.onTick?.({ connection: run.spec.connection, type: "fired", late });
      return true;
    } catch (error) {
      if (!this.stopped)
        this.options.logger.error({ connection: run.spec.connection, error: describe(error) }, "tick not accepted");
      return false;
    }
  }

  private missed(run: Running, count: number): void {
    run.status.missed += count;
    this.options.onTick?.({ connection: run.spec.connection, type: "missed", count });
  }

  private retry(run: Running): void {
    if (this.stopped) return;
    run.timer.arm(RETRY_MS, () => this.enqueue(run));
  }

  private arm(run: Running): void {
    if (this.stopped) return;
    const next = run.times.next(run.cursor);
    if (next === undefined) {
      delete run.status.nextAt;
      return;
    }
    run.status.nextAt = new Date(next).toISOString();
    run.timer.arm(Math.max(0, next - this.options.clock.now()), () => this.enqueue(run));
  }
}
