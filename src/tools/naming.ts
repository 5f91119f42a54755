/**
 * Tool names as the model sees them: `{resource}__{export}`, split at the FIRST `__` (SPEC §2).
 * Resource names use lowercase letters, digits, `-` and `_`; export names may also use upper case (upstream
 * Goondan's `telegram__setChatAction`). Neither holds `__`, starts or ends with `_` (a trailing `_` would make
 * the split ambiguous).
 */
export const TOOL_NAME_SEPARATOR = "__";

const PART_NAME = /^[a-z0-9](?:[a-z0-9-]|_(?!_))*$/;
const EXPORT_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/;

/** True when `name` may be a Tool resource name. */
export function isValidToolPartName(name: string): boolean {
  return name.length > 0 && name.length <= 64 && PART_NAME.test(name) && !name.endsWith("_");
}

/** True when `name` may be an export name (camelCase allowed). */
export function isValidExportName(name: string): boolean {
  return name.length > 0 && name.length <= 64 && EXPORT_NAME.test(name) && !name.endsWith("_");
}

/** A full name for a dynamic tool (`api.tools.register`): `a__b` with the characters model APIs accept. */
export function isValidFullToolName(name: string): boolean {
  const parsed = parseToolName(name);
  return (
    parsed !== null &&
    parsed.resourceName.length > 0 &&
    parsed.exportName.length > 0 &&
    name.length <= 64 &&
    /^[A-Za-z0-9_-]+$/.test(name)
  );
}

/** `buildToolName("bash", "exec")` or `buildToolName(toolResource, "exec")` → `"bash__exec"`. */
export function buildToolName(resource: string | { metadata: { name: string } }, exportName: string): string {
  const resourceName = typeof resource === "string" ? resource : resource.metadata.name;
  return `${resourceName}${TOOL_NAME_SEPARATOR}${exportName}`;
}

/** Splits at the first `__`; null when there is none. */
export function parseToolName(fullName: string): { resourceName: string; exportName: string } | null {
  const index = fullName.indexOf(TOOL_NAME_SEPARATOR);
  if (index < 0) return null;
  return { resourceName: fullName.slice(0, index), exportName: fullName.slice(index + TOOL_NAME_SEPARATOR.length) };
}
