/**
 * The connector context as the built-in connectors see it: structurally the same as the orchestrator's
 * ConnectorContext (the public Goondan shape plus `request`), declared here because src/base may not
 * import from the orchestrator.
 */
export interface BuiltinConnectorEvent {
  name: string;
  message: { type: "text"; text: string };
  properties: Record<string, string | number | boolean>;
  instanceKey?: string;
}

export interface BuiltinConnectorReply {
  eventId: string;
  status: "ok" | "error";
  response: string;
  error?: { code: string; message: string };
}

export interface BuiltinConnectorContext {
  emit(event: BuiltinConnectorEvent): Promise<{ eventId: string }>;
  request(event: BuiltinConnectorEvent): Promise<BuiltinConnectorReply>;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
  logger: { debug(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void };
  connection: string;
  signal: AbortSignal;
  onShutdown(handler: () => void | Promise<void>): void;
}

/** Reads a config value by any of its accepted spellings (`port`, `PORT`). */
export function configValue(config: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (config[name] !== undefined && config[name] !== null && config[name] !== "") return config[name];
  return undefined;
}
