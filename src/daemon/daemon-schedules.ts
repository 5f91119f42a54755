/**
 * The schedules of a running swarm, as the daemon holds them: the ScheduleRunner of the Swarm's `schedule`
 * Connections, fed through the one orchestrator ingest, its ticks counted in the swarm's metrics, its newest tick
 * per Connection read from the store, started again on a reload (the store's record means a restart of the runner
 * neither repeats nor skips a tick), and listed for `GET /v1/schedules` with each one's last result.
 *
 * Why here and not in a connector child: a tick has to be accepted with its stable id in the store's one idempotent
 * accept, which only the orchestrator's process makes; a child would hand its tick over IPC and could die between
 * the tick and the event, leaving the question of whether it fired to a second record. Here the event's own inbox
 * row is the record, written in the accept's transaction.
 */
import { selectSwarm } from "../config/resolve.ts";
import type { Bundle } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import { systemClock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { SwarmMetrics } from "../observability/swarm-metrics.ts";
import type { Orchestrator } from "../orchestrator/orchestrator.ts";
import { scheduleSpecs } from "../connector/schedule/schedule-plan.ts";
import { ScheduleRunner, type ScheduleRow } from "../connector/schedule/schedule-runner.ts";
import { newestTickQuery, tickTimeOf } from "../connector/schedule/tick-event.ts";
import { orchestratorIngest } from "./orchestrator-ingest.ts";

export interface DaemonSchedules {
  list(): Promise<ScheduleRow[]>;
  /** Fires one tick now; undefined when no schedule has that name. */
  run(connection: string): Promise<{ eventId: string } | undefined>;
  apply(bundle: Bundle): Promise<void>;
  stop(): Promise<void>;
}

export async function startSchedules(options: {
  orchestrator: Orchestrator;
  swarm: string;
  env: Env;
  metrics: SwarmMetrics;
  logger: Logger;
}): Promise<DaemonSchedules> {
  const { orchestrator } = options;
  const ingest = orchestratorIngest(orchestrator);
  const swarmKey = () => orchestrator.swarm.instanceKey;
  const runnerFor = (bundle: Bundle) =>
    new ScheduleRunner({
      specs: scheduleSpecs({ bundle, swarm: selectSwarm(bundle, options.swarm), env: options.env }),
      ingest,
      lastTick: async (connection) => {
        const id = await orchestrator.store.newestEventId(swarmKey(), newestTickQuery(connection));
        return id === undefined ? undefined : tickTimeOf(connection, id);
      },
      onTick: (report) => options.metrics.observeTick(report),
      clock: systemClock,
      logger: options.logger,
    });
  let runner = runnerFor(orchestrator.currentBundle);
  await runner.start();
  if (runner.statuses().length > 0)
    options.logger.info({ schedules: runner.statuses().map((status) => status.connection) }, "schedules started");
  return {
    async list() {
      return Promise.all(
        runner.statuses().map(async (status) => {
          const state = status.lastEventId ? await orchestrator.eventState(status.lastEventId) : undefined;
          return state === undefined ? status : { ...status, lastResult: state.state };
        }),
      );
    },
    run: (connection) => runner.runNow(connection),
    async apply(bundle) {
      const next = runnerFor(bundle);
      await runner.stop();
      runner = next;
      await runner.start();
    },
    stop: () => runner.stop(),
  };
}
