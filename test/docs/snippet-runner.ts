/**
 * Runs or validates one documentation code block, by its tags (see docs/README.md "Snippets are tested"):
 *   sh                 run with bash in the doc's scratch directory (a copy of the bundled example), where
 *                      `goondan`, `npx goondan` and `npm install` reach this checkout and nothing else (its
 *                      node_modules has `goondan`, `@modelcontextprotocol/sdk` for MCP server snippets, and
 *                      `openai`, `@ag-ui/client` and `@a2a-js/sdk` for the interop snippets)
 *   sh api             the same, while `goondan run` serves that directory (or `dir=DIR` in it); `127.0.0.1:8790`
 *                      and `--port 8790` are rewritten to the daemon's real port; GOONDAN_API_TOKEN is set for both
 *                      sides; `port: 8787` (the webhook's default) in the served goondan.yaml and `127.0.0.1:8787` in
 *                      the block become a free port of the doc's own, listening before the block runs
 *   sh suite           the test-suite command itself: checked against package.json, not run (it would run us)
 *   sh bench           benchmark commands: each `bun bench/<name>.ts` script must exist; not run (slow, timing)
 *   yaml goondan       a whole goondan.yaml, written to `dir=DIR` (default: the scratch directory itself,
 *                      replacing the example) and validated by `goondan validate`
 *   yaml resource      documents checked against the JSON Schema printed by `goondan schema`
 *   yaml compose       a compose file: parsed, and must define services; with `same-as=PATH`, it must equal the
 *                      repository's file PATH byte for byte (a shipped file shown in a doc)
 *   any file=PATH      a file written into the scratch directory (tool, extension, prompt); `ts tool` must
 *                      export `handlers`, `ts extension` must export `register`, `ts connector` a default function
 *                      or `start`; `import … from "goondan"` resolves
 *                      to this checkout
 *   json / jsonl       parsed
 *   dockerfile         parsed by the container test's Dockerfile reader
 *   text               not run (output samples, commands that need Docker or an API key)
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import Ajv from "ajv";
import type { CodeBlock } from "./markdown-blocks.ts";
import { parseDockerfile, stages } from "../container/dockerfile.ts";

export const REPO = join(import.meta.dir, "..", "..");
const BUN = process.execPath;
const CLI = join(REPO, "bin", "goondan");
export const API_TOKEN = "docs-snippet-token";
/** The signing secret docs export for their webhooks (`WEBHOOK_SECRET`), set for snippets and daemons alike. */
export const WEBHOOK_SECRET = "docs-snippet-webhook-secret";
const WEBHOOK_DEFAULT_PORT = "8787";

export interface DocScratch {
  /** Working directory of the doc's blocks: a copy of the bundled example, with node_modules/goondan. */
  dir: string;
  /** Temporary root holding dir, the shims and the state root; removed by stopScratch. */
  root: string;
  env: Record<string, string>;
  /** The port that stands for the webhook's default 8787 in this doc's served bundles and blocks. */
  webhookPort: string;
  daemon?: { process: Bun.Subprocess; port: number; dir: string };
}

export function createScratch(): DocScratch {
  const root = mkdtempSync(join(tmpdir(), "goondan-docs-"));
  const dir = join(root, "work");
  mkdirSync(dir, { recursive: true });
  for (const path of ["goondan.yaml", "prompts", "cassettes", "evals", "examples"]) {
    if (existsSync(join(REPO, path))) cpSync(join(REPO, path), join(dir, path), { recursive: true });
  }
  mkdirSync(join(dir, "node_modules", "@modelcontextprotocol"), { recursive: true });
  symlinkSync(REPO, join(dir, "node_modules", "goondan"));
  // A doc's own MCP server imports the SDK, as a project would after `npm install @modelcontextprotocol/sdk`.
  symlinkSync(
    join(REPO, "node_modules", "@modelcontextprotocol", "sdk"),
    join(dir, "node_modules", "@modelcontextprotocol", "sdk"),
  );
  // The clients of docs/interop.md import `openai` and `@ag-ui/client`, as their projects would.
  symlinkSync(join(REPO, "node_modules", "openai"), join(dir, "node_modules", "openai"));
  mkdirSync(join(dir, "node_modules", "@ag-ui"));
  symlinkSync(join(REPO, "node_modules", "@ag-ui", "client"), join(dir, "node_modules", "@ag-ui", "client"));
  mkdirSync(join(dir, "node_modules", "@a2a-js"));
  symlinkSync(join(REPO, "node_modules", "@a2a-js", "sdk"), join(dir, "node_modules", "@a2a-js", "sdk"));
  const bin = join(root, "bin");
  mkdirSync(bin);
  const shim = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  shim("goondan", `exec "${BUN}" "${CLI}" "$@"`);
  shim(
    "npx",
    `if [ "$1" = goondan ]; then shift; exec "${BUN}" "${CLI}" "$@"; fi\necho "docs snippet: npx $1 is not available offline" >&2; exit 97`,
  );
  shim(
    "npm",
    `case "$1" in install|ci|i) exit 0;; esac\necho "docs snippet: npm $1 is not run by the snippet test" >&2; exit 97`,
  );
  shim("bun", `exec "${BUN}" "$@"`);
  // A port of the doc's own: its daemon listens there, and operator commands (`goondan ps`, `doctor`) default to it.
  const port = freePort();
  const env: Record<string, string> = {
    GOONDAN_PORT: port,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: root,
    GOONDAN_STATE_ROOT: join(root, "state"),
    GOONDAN_LOG_LEVEL: "warn",
    ANTHROPIC_API_KEY: "docs-snippet-fake-key",
    OPENAI_API_KEY: "docs-snippet-fake-key",
    WEBHOOK_SECRET,
    // A turn on a real provider (a doc's Anthropic bundle answering a webhook) must not reach the internet: its
    // HTTPS goes to a loopback port nothing listens on, and fails there.
    HTTPS_PROXY: "http://127.0.0.1:9",
    NO_PROXY: "127.0.0.1,localhost",
  };
  return { root, dir, env, webhookPort: freePort() };
}

function freePort(): string {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = String(probe.port);
  probe.stop(true);
  return port;
}

/** Resolves once something accepts connections on 127.0.0.1:`port`; throws after `timeoutMs`. */
async function waitForListener(options: { port: number; timeoutMs: number }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port: options.port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await Bun.sleep(100);
  }
  throw new Error(`nothing listens on 127.0.0.1:${options.port} after ${options.timeoutMs} ms`);
}

async function runShell(options: {
  script: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
}): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(["bash", "-euo", "pipefail", "-c", options.script], {
    cwd: options.cwd,
    env: options.env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, output: `${stdout}${stderr}` };
}

async function startDaemon(options: {
  scratch: DocScratch;
  dir: string;
}): Promise<{ process: Bun.Subprocess; port: number; dir: string }> {
  const { scratch, dir } = options;
  const manifest = join(dir, "goondan.yaml");
  if (existsSync(manifest)) {
    writeFileSync(
      manifest,
      readFileSync(manifest, "utf8").replace(
        new RegExp(`(\\bport:\\s*)${WEBHOOK_DEFAULT_PORT}\\b`, "g"),
        `$1${scratch.webhookPort}`,
      ),
    );
  }
  const child = Bun.spawn([BUN, CLI, "run", dir, "--port", scratch.env.GOONDAN_PORT ?? "0"], {
    cwd: scratch.dir,
    env: { ...scratch.env, GOONDAN_API_TOKEN: API_TOKEN, GOONDAN_LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "pipe",
  });
  // The logs go to stdout, or to stderr when a `cli` Connection owns stdout: "ready" is looked for on both, and
  // the daemon's warnings and errors reach the test's stderr either way.
  const ready = Promise.withResolvers<number>();
  let startup: string | undefined = "";
  const watch = async (options: { stream: ReadableStream<Uint8Array>; forward: boolean }) => {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of options.stream) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        let record: { msg?: unknown; port?: unknown; level?: unknown } | undefined;
        try {
          record = JSON.parse(line) as typeof record;
        } catch {
          // not a log line
        }
        if (record?.msg === "ready" && typeof record.port === "number") ready.resolve(record.port);
        if (startup !== undefined) startup += `${line}\n`;
        if (options.forward && (typeof record?.level !== "number" || record.level >= 40))
          process.stderr.write(`${line}\n`);
      }
    }
  };
  void watch({ stream: child.stdout, forward: false });
  void watch({ stream: child.stderr, forward: true });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const port = await Promise.race([ready.promise, child.exited.then(() => undefined)]);
  clearTimeout(timer);
  if (port === undefined) throw new Error(`goondan run did not log ready:\n${startup}`);
  startup = undefined;
  return { process: child, port, dir };
}

export async function stopScratch(scratch: DocScratch): Promise<void> {
  if (scratch.daemon) {
    scratch.daemon.process.kill("SIGTERM");
    await scratch.daemon.process.exited;
    scratch.daemon = undefined;
  }
}

export function removeScratch(scratch: DocScratch): void {
  rmSync(scratch.root, { recursive: true, force: true });
}

function writeBlockFile(options: { scratch: DocScratch; block: CodeBlock }): string {
  const { scratch, block } = options;
  const path = join(scratch.dir, block.attributes.file as string);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, block.code);
  return path;
}

let schemaValidator: ((document: unknown) => string[]) | undefined;
async function documentValidator(): Promise<(document: unknown) => string[]> {
  if (schemaValidator) return schemaValidator;
  const result = Bun.spawnSync([BUN, CLI, "schema"], { cwd: REPO });
  if (result.exitCode !== 0) throw new Error(`goondan schema failed: ${result.stderr.toString()}`);
  const schema = JSON.parse(result.stdout.toString()) as Record<string, unknown>;
  delete schema.$schema;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  schemaValidator = (document) =>
    validate(document) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  return schemaValidator;
}

/** Runs or validates one block; throws with the reason when it fails. Blocks of one doc share `scratch`, in order. */
export async function runBlock(options: { block: CodeBlock; scratch: DocScratch }): Promise<void> {
  const { block, scratch } = options;
  const where = `${block.source}:${block.line}`;
  const is = (lang: string, tag?: string) =>
    block.lang === lang && (tag === undefined ? block.tags.length === 0 : block.tags.includes(tag));
  if (block.attributes.file !== undefined) {
    const path = writeBlockFile({ scratch, block });
    if (is("ts", "tool") || is("ts", "extension") || is("ts", "connector")) {
      const module = (await import(path)) as Record<string, unknown>;
      if (block.tags.includes("tool")) {
        const handlers = module.handlers as Record<string, unknown> | undefined;
        if (
          typeof handlers !== "object" ||
          handlers === null ||
          !Object.values(handlers).every((handler) => typeof handler === "function")
        )
          throw new Error(`${where}: a tool module must export handlers`);
      } else if (block.tags.includes("connector")) {
        if (typeof module.default !== "function" && typeof module.start !== "function")
          throw new Error(`${where}: a connector module must export a default function or start(ctx)`);
      } else if (typeof module.register !== "function")
        throw new Error(`${where}: an extension module must export register(api, config)`);
    }
    return;
  }
  if (block.lang === "text") return;
  if (is("sh") || is("sh", "api")) {
    let script = block.code;
    const env = { ...scratch.env };
    if (block.tags.includes("api")) {
      const dir = join(scratch.dir, block.attributes.dir ?? ".");
      if (scratch.daemon && scratch.daemon.dir !== dir) await stopScratch(scratch);
      scratch.daemon ??= await startDaemon({ scratch, dir });
      const port = String(scratch.daemon.port);
      script = script
        .replaceAll("127.0.0.1:8790", `127.0.0.1:${port}`)
        .replaceAll("localhost:8790", `127.0.0.1:${port}`)
        .replaceAll("--port 8790", `--port ${port}`);
      env.GOONDAN_API_TOKEN = API_TOKEN;
      const webhook = new RegExp(`(127\\.0\\.0\\.1|localhost):${WEBHOOK_DEFAULT_PORT}\\b`, "g");
      if (webhook.test(script)) {
        script = script.replace(webhook, `127.0.0.1:${scratch.webhookPort}`);
        // The connector is a process of its own: the daemon's "ready" does not wait for it to listen.
        await waitForListener({ port: Number(scratch.webhookPort), timeoutMs: 20_000 });
      }
    }
    const result = await runShell({ script, cwd: scratch.dir, env, timeoutMs: 60_000 });
    if (result.code !== 0)
      throw new Error(`${where}: exit ${result.code}\n${block.code}\n--- output ---\n${result.output}`);
    return;
  }
  if (is("sh", "suite")) {
    const packageJson = (await Bun.file(join(REPO, "package.json")).json()) as { scripts?: Record<string, string> };
    if (block.code.trim() !== "npm install && npm test" || !packageJson.scripts?.test)
      throw new Error(
        `${where}: the test-suite command must be "npm install && npm test" and package.json must define scripts.test`,
      );
    return;
  }
  if (is("sh", "bench")) {
    const scripts = [...block.code.matchAll(/\bbun (bench\/[\w.-]+\.ts)/g)].map((match) => match[1] as string);
    const missing = scripts.filter((script) => !existsSync(join(REPO, script)));
    if (scripts.length === 0 || missing.length > 0)
      throw new Error(`${where}: benchmark scripts not found: ${missing.join(", ") || "none named"}`);
    return;
  }
  if (is("yaml", "goondan")) {
    const bundle = join(scratch.dir, block.attributes.dir ?? ".");
    mkdirSync(bundle, { recursive: true });
    writeFileSync(join(bundle, "goondan.yaml"), block.code);
    const result = Bun.spawnSync([BUN, CLI, "validate", bundle, "--format", "json"], {
      cwd: scratch.dir,
      env: scratch.env,
    });
    if (result.exitCode !== 0)
      throw new Error(
        `${where}: goondan validate exited ${result.exitCode}\n${result.stdout.toString()}${result.stderr.toString()}`,
      );
    return;
  }
  if (is("yaml", "resource")) {
    const validate = await documentValidator();
    const documents = parseAllDocuments(block.code);
    if (documents.length === 0) throw new Error(`${where}: no YAML document`);
    for (const document of documents) {
      if (document.errors.length > 0) throw new Error(`${where}: ${document.errors[0]?.message}`);
      const problems = validate(document.toJS());
      if (problems.length > 0) throw new Error(`${where}: schema: ${problems.join("; ")}`);
    }
    return;
  }
  if (is("yaml", "compose")) {
    const compose = parseYaml(block.code) as { services?: unknown };
    if (typeof compose?.services !== "object") throw new Error(`${where}: a compose file needs services`);
    const shipped = block.attributes["same-as"];
    if (shipped !== undefined && readFileSync(join(REPO, shipped), "utf8") !== block.code)
      throw new Error(`${where}: the block differs from ${shipped}; copy the file into the doc again`);
    return;
  }
  if (is("json")) {
    JSON.parse(block.code);
    return;
  }
  if (is("jsonl")) {
    for (const line of block.code.split("\n").filter((text) => text.trim() !== "")) JSON.parse(line);
    return;
  }
  if (is("dockerfile")) {
    const parsed = stages(parseDockerfile(block.code));
    if (parsed.length === 0) throw new Error(`${where}: no FROM`);
    return;
  }
  throw new Error(
    `${where}: unknown snippet kind "${[block.lang, ...block.tags].join(" ")}"; tag it (sh, yaml goondan, yaml resource, ts tool file=…, json, text …)`,
  );
}
