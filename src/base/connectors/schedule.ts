/**
 * The built-in `schedule` connector's entry. Its Connections are run by the daemon itself, never in a connector
 * child (src/connector/schedule/): a tick is accepted as an event with a stable id through the orchestrator's one
 * idempotent accept, in the store's one transaction, which a child could reach only through a second, asynchronous
 * hop that can be cut between the tick and its event. This module exists so that the Connector has an entry like
 * any other; started as a child anyway, it refuses with a coded error instead of sitting silent.
 */
import type { ConnectorContext } from "../../connector/connector-types.ts";
import { ConfigError } from "../../shared/errors.ts";

export default async function start(ctx: ConnectorContext): Promise<never> {
  throw new ConfigError(
    "E_SCHEDULE_CHILD",
    `Connection ${ctx.connection} of the schedule connector runs inside the daemon, not as a connector child`,
    { suggestion: 'refer to the built-in schedule connector with package: "@goondan/base"' },
  );
}
