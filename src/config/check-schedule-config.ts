/**
 * Connections of the built-in `schedule` connector, checked where they are written: an invalid cron expression, an
 * unknown time zone, a negative or absurd duration, a template naming a field a tick lacks or an unknown setting is
 * an issue at its `spec.config` key (file:line, with "did you mean" where a name is close), not a schedule that
 * silently never fires. A setting read from an env var is judged when the daemon starts instead.
 */
import { BUILTIN_PACKAGE } from "./types.ts";
import type { IssueList } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { isValueSource } from "./value-source.ts";
import { readScheduleSettings, SCHEDULE_CONNECTOR_NAME } from "./schedule-settings.ts";

/** Run after checkRefs, which marks the refs that resolve to built-ins. */
export function checkScheduleConfig(options: { resources: readonly LoadedResource[]; issues: IssueList }): void {
  for (const loaded of options.resources) {
    if (loaded.resource.kind !== "Connection") continue;
    const usesSchedule = loaded.refs.some(
      (use) =>
        use.segments.join(".") === "spec.connectorRef" &&
        use.ref.name === SCHEDULE_CONNECTOR_NAME &&
        use.ref.package === BUILTIN_PACKAGE,
    );
    if (!usesSchedule) continue;
    const written = loaded.resource.spec.config ?? {};
    const config: Record<string, unknown> = {};
    let fromEnv = false;
    for (const [key, value] of Object.entries(written)) {
      if (!isValueSource(value)) config[key] = value;
      else if ("value" in value) config[key] = value.value;
      else fromEnv = true;
    }
    if (fromEnv) continue;
    for (const problem of readScheduleSettings(config).problems) {
      const { field, ...issue } = problem;
      options.issues.at(loaded.site, ["spec", "config", field], { ...issue, atKey: !(field in written) || undefined });
    }
  }
}
