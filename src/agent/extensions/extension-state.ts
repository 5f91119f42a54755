/**
 * The extensions' state of one instance (`api.state`), keyed by extension name: hydrated from the store when the
 * child starts, and made durable by a commit on every `set` before it resolves.
 */
import type { InstanceCommit } from "../../protocol/instance-state.ts";
import type { JsonValue } from "../../shared/json.ts";

export class ExtensionState {
  private readonly values: Map<string, JsonValue>;

  constructor(
    initial: Record<string, JsonValue>,
    private readonly commit: (commit: InstanceCommit) => Promise<void>,
  ) {
    this.values = new Map(Object.entries(initial));
  }

  get(name: string): JsonValue | undefined {
    return this.values.get(name);
  }

  async set(name: string, value: JsonValue): Promise<void> {
    this.values.set(name, value);
    await this.commit({ extensionState: { [name]: value } });
  }
}
