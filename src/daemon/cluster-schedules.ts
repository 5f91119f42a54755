/**
 * The schedules of a swarm run as a cluster (`goondan run --cluster`): each schedule is fired by the one node that
 * holds its lease (cluster/lease/schedule-leases.ts), through a ScheduleRunner of its own that starts when this node
 * claims the lease and stops the moment it loses it. The runner carries on after the newest tick any node recorded
 * (the cluster's cursor), so a node that takes a schedule over after the
 * holder died neither repeats what was accepted nor skips what came due meanwhile beyond the Connection's
 * `catchUp`. A tick the dead holder accepted but had not recorded is offered again with the same event id and taken
 * once by the store of the instance's owner (acceptDelivered answers an id it holds from its record).
 */
import { selectSwarm } from "../config/resolve.ts";
import type { Bundle } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import type { ScheduleLeases } from "../cluster/lease/schedule-leases.ts";
import { scheduleSpecs } from "../connector/schedule/schedule-plan.ts";
import { ScheduleRunner, type ScheduleRow } from "../connector/schedule/schedule-runner.ts";
import { newestTickQuery, tickEvent, tickTimeOf, type ScheduleSpec } from "../connector/schedule/tick-event.ts";
import type { SwarmMetrics } from "../observability/swarm-metrics.ts";
import type { Orchestrator } from "../orchestrator/orchestrator.ts";
import { systemClock } from "../shared/clock.ts";
import { describe } from "../shared/errors.ts";
import type { Logger } from "../shared/logger.ts";
import type { DaemonSchedules } from "./daemon-schedules.ts";
import { orchestratorIngest } from "./orchestrator-ingest.ts";

export async function startClusterSchedules(options: {
  orchestrator: Orchestrator;
  leases: ScheduleLeases;
  node: string;
  swarm: string;
  env: Env;
  metrics: SwarmMetrics;
  logger: Logger;
}): Promise<DaemonSchedules> {
  const { orchestrator, leases, logger } = options;
  const ingest = orchestratorIngest(orchestrator);
  const specsOf = (bundle: Bundle) =>
    scheduleSpecs({ bundle, swarm: selectSwarm(bundle, options.swarm), env: options.env });
  let specs = specsOf(orchestrator.currentBundle);
  const runners = new Map<string, ScheduleRunner>();

  // The cluster's cursor is the record; this node's store only for a schedule the cluster never fired (one that ran
  // on a single host before). A cursor behind the truth only makes ticks be offered again, and each is taken once.
  const lastTick = async (connection: string): Promise<number | undefined> => {
    const shared = await leases.cursor(connection);
    if (shared !== undefined) return shared;
    const id = await orchestrator.store.newestEventId(orchestrator.swarm.instanceKey, newestTickQuery(connection));
    return id === undefined ? undefined : tickTimeOf(connection, id);
  };

  const startRunner = async (spec: ScheduleSpec): Promise<void> => {
    const runner = new ScheduleRunner({
      specs: [spec],
      ingest,
      lastTick,
      onTick: (report) => options.metrics.observeTick(report),
      onAccepted: (connection, at) => void leases.record(connection, at),
      clock: systemClock,
      logger,
    });
    runners.set(spec.connection, runner);
    try {
      await runner.start();
    } catch (error) {
      // The cursor could not be read: let the lease go, so this node (or another) claims it again.
      logger.error({ connection: spec.connection, error: describe(error).message }, "schedule did not start");
      runners.delete(spec.connection);
      await runner.stop();
      await leases.release(spec.connection);
    }
  };

  const stopRunner = async (connection: string): Promise<void> => {
    const runner = runners.get(connection);
    runners.delete(connection);
    await runner?.stop();
  };

  const follow = () =>
    leases.follow(
      specs.map((spec) => spec.connection),
      {
        held: (connection) => {
          const spec = specs.find((candidate) => candidate.connection === connection);
          if (spec !== undefined && !runners.has(connection)) void startRunner(spec);
        },
        lost: (connection) => void stopRunner(connection),
      },
    );
  follow();
  if (specs.length > 0)
    logger.info({ schedules: specs.map((spec) => spec.connection) }, "schedules follow their leases");

  return {
    async list(): Promise<ScheduleRow[]> {
      return Promise.all(
        specs.map(async (spec): Promise<ScheduleRow> => {
          const status = runners.get(spec.connection)?.statuses()[0];
          if (status !== undefined) {
            const state = status.lastEventId ? await orchestrator.eventState(status.lastEventId) : undefined;
            return { ...status, node: options.node, ...(state ? { lastResult: state.state } : {}) };
          }
          const { settings } = spec;
          const [holder, last] = await Promise.all([
            leases.holder(spec.connection),
            leases.cursor(spec.connection).catch(() => undefined),
          ]);
          return {
            connection: spec.connection,
            ...(settings.cron === undefined ? {} : { cron: settings.cron }),
            ...(settings.every === undefined ? {} : { every: settings.every }),
            timezone: settings.timezone,
            catchUp: settings.catchUp,
            ...(holder === undefined ? {} : { node: holder }),
            ...(last === undefined ? {} : { lastTickAt: new Date(last).toISOString() }),
            fired: 0,
            caughtUp: 0,
            missed: 0,
            late: 0,
          };
        }),
      );
    },
    async run(connection) {
      const held = runners.get(connection);
      if (held !== undefined) return held.runNow(connection);
      // A tick by hand touches no schedule's record: any node may fire it.
      const spec = specs.find((candidate) => candidate.connection === connection);
      const event = spec && tickEvent({ spec, at: systemClock.now(), manual: true });
      if (event === undefined) return undefined;
      await ingest(event);
      return { eventId: event.eventId as string };
    },
    async apply(bundle) {
      specs = specsOf(bundle);
      await Promise.all([...runners.keys()].map(stopRunner));
      for (const spec of specs) if (leases.holds(spec.connection)) await startRunner(spec);
      follow();
    },
    async stop() {
      await Promise.all([...runners.keys()].map(stopRunner));
      await leases.stop();
    },
  };
}
