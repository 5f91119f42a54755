/** A tiny in-process event bus for `api.events`: listeners run synchronously; a throwing listener is logged, not fatal. */
import type { JsonValue } from "../../shared/json.ts";

export class EventBus {
  private readonly listeners = new Map<string, Set<(payload: JsonValue) => void>>();

  constructor(private readonly onListenerError: (type: string, error: unknown) => void = () => {}) {}

  on(type: string, listener: (payload: JsonValue) => void): () => void {
    const set = this.listeners.get(type) ?? new Set();
    set.add(listener);
    this.listeners.set(type, set);
    return () => set.delete(listener);
  }

  emit(type: string, payload: JsonValue): void {
    for (const listener of this.listeners.get(type) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        this.onListenerError(type, error);
      }
    }
  }
}
