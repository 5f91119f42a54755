/**
 * The interoperability surfaces `goondan run` serves beside its own API, each on by default and each turned off by
 * naming it in `GOONDAN_API_SURFACES_OFF` (comma-separated): `openai` (`/v1/chat/completions`, `/v1/models`),
 * `ag-ui` (`/v1/ag-ui`), `a2a` (`/.well-known/agent-card.json`, `/v1/a2a`).
 * A name that is not a surface is refused when read, naming the variable.
 */
import { UsageError } from "../shared/errors.ts";

export const API_SURFACES = ["openai", "ag-ui", "a2a"] as const;
export type ApiSurface = (typeof API_SURFACES)[number];

const isSurface = (name: string): name is ApiSurface => (API_SURFACES as readonly string[]).includes(name);

/** `{surfacesOff}` from the environment; throws `E_API_SURFACES_INVALID` for an unknown name. */
export function apiSurfacesFromEnv(env: Record<string, string | undefined>): { surfacesOff?: ApiSurface[] } {
  const names = (env.GOONDAN_API_SURFACES_OFF ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) return {};
  const unknown = names.filter((name) => !isSurface(name));
  if (unknown.length > 0)
    throw new UsageError(
      "E_API_SURFACES_INVALID",
      `GOONDAN_API_SURFACES_OFF: expected names among ${API_SURFACES.join(", ")}, got ${unknown.map((name) => JSON.stringify(name)).join(", ")}`,
      { suggestion: "fix or unset GOONDAN_API_SURFACES_OFF; see docs/interop.md" },
    );
  return { surfacesOff: names.filter(isSurface) };
}
