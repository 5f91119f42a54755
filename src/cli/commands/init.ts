/**
 * `goondan init [dir] [--template default|multi-agent] [--force]`: writes a ready-to-run bundle from a
 * template in src/cli/templates/<template>/ (goondan.yaml, prompts, tools). Refuses a non-empty target
 * directory unless --force. `{{name}}` in templates becomes a resource-safe name derived from the directory.
 * It also writes a tsconfig.json whose `paths` map "goondan" to this package's src/index.ts, so editors
 * type-check `import type { ToolHandler } from "goondan"` in a bundle that has no node_modules (at run
 * time the goondan-module-resolver plugin serves the import), and goondan.schema.json (what `goondan schema`
 * prints), which the `# yaml-language-server: $schema=` line heading goondan.yaml points editors at.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { EXIT, type CliCommand } from "../command.ts";
import { UsageError } from "../../shared/errors.ts";
import { documentSchema } from "../../config/document-schema.ts";

export const TEMPLATES = ["default", "multi-agent"] as const;
export type TemplateName = (typeof TEMPLATES)[number];

const TEMPLATE_ROOT = new URL("../templates/", import.meta.url).pathname;

/** The goondan package this CLI runs from (holds src/index.ts, the public surface). */
const PACKAGE_ROOT = new URL("../../../", import.meta.url).pathname;

/** npm drops dotfiles like `.gitignore` from published packages, so templates store them without the dot. */
const RENAMES: Record<string, string> = { gitignore: ".gitignore" };

/** The JSON Schema file written next to goondan.yaml, and the line that points yaml-language-server at it. */
export const SCHEMA_FILE = "goondan.schema.json";
export const SCHEMA_MODELINE = `# yaml-language-server: $schema=./${SCHEMA_FILE}`;

/** A lowercase name made of letters, digits, `-` and `_` (what goondan resource names allow). */
export function bundleName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/_{2,}/g, "_")
    .replace(/^[-_]+|[-_]+$/g, "");
  return name === "" ? "my-swarm" : name;
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? templateFiles(path) : [path];
  });
}

export interface InitOptions {
  /** Target directory (created when missing). */
  dir: string;
  /** Default: "default". */
  template?: TemplateName;
  /** Write into a non-empty directory, overwriting template files. Default: false. */
  force?: boolean;
}

/**
 * The tsconfig.json of a new bundle: "goondan" maps to the package's src/index.ts, by a path relative to
 * the bundle when the bundle is inside the package (the repo), else absolute; Bun's types come from the
 * package's own node_modules/@types when it has them.
 */
export function bundleTsconfig(options: { dir: string; packageRoot?: string }): Record<string, unknown> {
  const packageRoot = resolve(options.packageRoot ?? PACKAGE_ROOT);
  const dir = resolve(options.dir);
  const index = join(packageRoot, "src", "index.ts");
  const fromPackage = relative(packageRoot, dir);
  const inside = !fromPackage.startsWith("..") && !isAbsolute(fromPackage);
  // Inside the package a relative path keeps a committed tsconfig.json valid on every checkout.
  const written = (path: string): string => {
    if (!inside) return path;
    const fromBundle = relative(dir, path);
    return fromBundle.startsWith("..") ? fromBundle : `./${fromBundle}`;
  };
  const typeRoot = join(packageRoot, "node_modules", "@types");
  const bunTypes = existsSync(join(typeRoot, "bun"))
    ? { typeRoots: [written(typeRoot)], types: ["bun"] }
    : { types: [] };
  return {
    compilerOptions: {
      target: "ES2022",
      module: "ESNext",
      moduleResolution: "bundler",
      lib: ["ES2023"],
      ...bunTypes,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      paths: { goondan: [written(index)] },
    },
    include: ["**/*.ts"],
  };
}

/** Writes the template into `dir` and returns the written paths, relative to `dir`. */
export function initBundle(options: InitOptions): string[] {
  const template = options.template ?? "default";
  if (!TEMPLATES.includes(template)) {
    throw new UsageError(
      "E_INIT_UNKNOWN_TEMPLATE",
      `unknown template ${JSON.stringify(template)}, expected one of ${TEMPLATES.join(", ")}`,
    );
  }
  const target = resolve(options.dir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory())
      throw new UsageError("E_INIT_TARGET_NOT_DIRECTORY", `${target} exists and is not a directory`);
    if (readdirSync(target).length > 0 && !options.force) {
      throw new UsageError("E_INIT_TARGET_NOT_EMPTY", `${target} is not empty`, {
        suggestion: "choose an empty directory or pass --force to overwrite the template's files",
      });
    }
  }
  const source = join(TEMPLATE_ROOT, template);
  const name = bundleName(target);
  const written: string[] = [];
  for (const file of templateFiles(source).sort()) {
    const parts = relative(source, file).split("/");
    const last = parts.length - 1;
    parts[last] = RENAMES[parts[last] as string] ?? (parts[last] as string);
    const destination = join(target, ...parts);
    mkdirSync(join(destination, ".."), { recursive: true });
    const text = readFileSync(file, "utf8").replaceAll("{{name}}", name);
    writeFileSync(destination, parts.join("/") === "goondan.yaml" ? `${SCHEMA_MODELINE}\n${text}` : text);
    written.push(parts.join("/"));
  }
  writeFileSync(join(target, SCHEMA_FILE), `${JSON.stringify(documentSchema(), null, 2)}\n`);
  written.push(SCHEMA_FILE);
  // A tsconfig.json the user already has is theirs, even with --force; the docs say which `paths` to add.
  if (!existsSync(join(target, "tsconfig.json"))) {
    writeFileSync(join(target, "tsconfig.json"), `${JSON.stringify(bundleTsconfig({ dir: target }), null, 2)}\n`);
    written.push("tsconfig.json");
  }
  return written;
}

export const command: CliCommand = {
  name: "init",
  summary: "write a new bundle (goondan.yaml, prompts, tools) from a template",
  usage: "goondan init [dir] [--template default|multi-agent] [--force]",
  flags: {
    template: {
      type: "string",
      short: "t",
      description: "which bundle to write (default: default)",
      choices: TEMPLATES,
    },
    force: {
      type: "boolean",
      short: "f",
      description: "write into a non-empty directory, overwriting files the template has",
    },
  },
  maxPositionals: 1,
  async run({ flags, positionals, io }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const written = initBundle({
      dir,
      template: (flags.template as TemplateName | undefined) ?? "default",
      force: flags.force === true,
    });
    const shown = relative(io.cwd, dir) || ".";
    io.stdout(
      `Created a goondan bundle in ${shown}:\n${written.map((path) => `  ${path}\n`).join("")}\nNext:\n  npx goondan validate ${shown}\n  npx goondan run ${shown} --input "Hello"\n`,
    );
    return EXIT.ok;
  },
};
