/**
 * Makes `import { pending, ToolFault } from "goondan"` work in any bundle's tool, extension and connector
 * files, with or without node_modules: a Bun runtime plugin that answers the exact specifier "goondan" with
 * this very process's copy of the public runtime values (public-values.ts; src/index.ts adds only types), so a
 * bundle on disk anywhere needs no install and a tool's helpers are the ones the runtime checks against. No
 * path is computed at run time: the agent entry runs from a Bun.build bundle under the state root, where
 * import.meta.url points into the cache, so the values are linked in (bundled with the entry).
 * Import this module for its side effect before any user module is imported.
 */
import { plugin } from "bun";
import * as publicValues from "./public-values.ts";

/** The one specifier served: the package exports only ".", so there are no "goondan/…" subpaths. */
export const GOONDAN_SPECIFIER = "goondan";

plugin({
  name: "goondan-module-resolver",
  setup(build) {
    build.module(GOONDAN_SPECIFIER, () => ({ exports: { ...publicValues }, loader: "object" }));
  },
});
