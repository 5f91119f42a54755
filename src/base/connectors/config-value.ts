/** Reads a Connection config value by any of its accepted spellings (`port`, `PORT`); empty values count as unset. */
export function configValue(config: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names)
    if (config[name] !== undefined && config[name] !== null && config[name] !== "") return config[name];
  return undefined;
}
