/**
 * From a validated bundle to the schedules to run: one ScheduleSpec per Connection of the Swarm bound to the
 * built-in `schedule` connector, its config resolved from its ValueSources and read by the one settings reader
 * (a problem only the environment could show, such as a cron expression from an unset or bad variable, is a
 * ConfigError naming the Connection and the field before anything starts).
 */
import type { Bundle, SwarmResource } from "../../config/types.ts";
import type { Env } from "../../config/value-source.ts";
import { readScheduleSettings } from "../../config/schedule-settings.ts";
import { ConfigError } from "../../shared/errors.ts";
import { connectionsWithConnectors, isScheduleConnector, resolvedConfig } from "../host/connection-plan.ts";
import type { ScheduleSpec } from "./tick-event.ts";

export function scheduleSpecs(options: { bundle: Bundle; swarm: SwarmResource; env: Env }): ScheduleSpec[] {
  return connectionsWithConnectors(options)
    .filter(({ connector }) => isScheduleConnector(connector))
    .map(({ connection }) => {
      const name = connection.metadata.name;
      const { settings, problems } = readScheduleSettings(resolvedConfig(connection, options.env));
      const [problem] = problems;
      if (settings === undefined || problem !== undefined)
        throw new ConfigError(
          problem?.code ?? "E_CONFIG_SCHEDULE_INVALID",
          `Connection/${name} spec.config.${problem?.field ?? ""}: ${problem?.message ?? "invalid schedule"}`,
          problem?.suggestion === undefined ? {} : { suggestion: problem.suggestion },
        );
      return {
        connection: name,
        settings,
        rules: connection.spec.ingress?.rules ?? [],
        entryAgent: options.swarm.spec.entryAgent.name,
        swarmInstanceKey: options.swarm.spec.instanceKey,
      };
    });
}
