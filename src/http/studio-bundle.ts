/**
 * The studio's files as the daemon serves them: its page as it ships in src/http/studio/, its stylesheet the
 * concatenation of the CSS files there (STYLESHEETS, in order), and its script built from src/http/studio/main.js by `Bun.build` (Preact, htm, marked, DOMPurify and dagre bundled in from
 * node_modules, minified) the first time the studio is asked for, then kept in memory. Nothing is committed built and
 * nothing is fetched at run time: `goondan run`, and every test that opens the page, build it from the sources.
 * A build that fails is `E_STUDIO_BUILD` (a broken checkout), and the next request tries again.
 */
import { readFile } from "node:fs/promises";
import { SystemError } from "../shared/errors.ts";

const DIR = new URL("./studio/", import.meta.url).pathname;
const TYPES = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
} as const;

/** The stylesheet's parts, in the order they cascade. */
const STYLESHEETS = ["base.css", "processes-agents.css", "threads.css", "waterfall.css", "evals.css"];

export interface StudioFile {
  body: string;
  type: string;
}

/** The files by name: `index.html`, `studio.css`, `app.js`. */
export type StudioFiles = ReadonlyMap<string, StudioFile>;

let built: Promise<StudioFiles> | undefined;

async function build(): Promise<StudioFiles> {
  const result = await Bun.build({
    entrypoints: [`${DIR}main.js`],
    target: "browser",
    format: "esm",
    minify: true,
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    throw: false,
  });
  const script = result.outputs.find((output) => output.kind === "entry-point");
  if (!result.success || script === undefined)
    throw new SystemError(
      "E_STUDIO_BUILD",
      `the studio's script did not build from ${DIR}main.js: ${result.logs.map(String).join("; ").slice(0, 2000)}`,
    );
  return new Map([
    ["index.html", { body: await readFile(`${DIR}index.html`, "utf8"), type: TYPES.html }],
    [
      "studio.css",
      {
        body: (await Promise.all(STYLESHEETS.map((name) => readFile(`${DIR}${name}`, "utf8")))).join("\n"),
        type: TYPES.css,
      },
    ],
    ["app.js", { body: await script.text(), type: TYPES.js }],
  ]);
}

/** The built studio, built once per process (again after a failed build). */
export function studioFiles(): Promise<StudioFiles> {
  built ??= build().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
