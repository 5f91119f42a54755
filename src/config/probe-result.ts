/** What the Tool module probe child reports for one entry module (see probe-modules-child.ts). */
export const PROBE_MARKER = "@@goondan-probe@@";

export interface ProbeResult {
  path: string;
  loaded: boolean;
  /** Why the import failed (when `loaded` is false). */
  error?: string;
  /** The `handlers` export: missing, not an object, or an object with each value's typeof. */
  handlers?:
    | { kind: "missing" }
    | { kind: "invalid"; found: string }
    | { kind: "object"; types: Record<string, string> };
}
