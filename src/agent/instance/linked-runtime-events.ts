/**
 * Where an agent instance's runtime events go: stamped with the time and the instance, then handed over the
 * instance link to the orchestrator (which stores them and streams them to watchers), each as publicRuntimeEvent makes
 * it: the child's secret values redacted and its data fields bounded. Losing the last few on a crash costs no
 * correctness.
 */
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { RuntimeEventSink } from "../loop/runtime-event-sink.ts";
import { publicRuntimeEvent } from "../../protocol/public-runtime-event.ts";
import type { InstanceLink } from "./instance-link.ts";

export function linkedRuntimeEvents(options: {
  link: Pick<InstanceLink, "runtimeEvent">;
  agent: string;
  instanceKey: string;
  now: () => number;
  /** The values that must not leave the child (secretValues of its env). */
  secrets?: readonly string[];
}): RuntimeEventSink {
  const { link, agent, instanceKey, now } = options;
  const secrets = options.secrets ?? [];
  return {
    emit: (event) =>
      link.runtimeEvent({
        at: new Date(now()).toISOString(),
        agent,
        instanceKey,
        ...publicRuntimeEvent(event, { secrets }),
      } as RuntimeEvent),
  };
}
