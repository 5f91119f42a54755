/**
 * `goondan package add|list|remove` for the bundle in the current directory (or `--bundle DIR`): `add NAME[@RANGE]`
 * runs `npm install` there and names the package in the Package's `spec.dependencies` (as `{name, version}`, the
 * range npm saved); `remove NAME` runs `npm uninstall` and drops it; `list` prints each dependency with the version
 * installed (config/npm-packages.ts resolves them when the bundle loads). goondan.yaml is edited through the yaml
 * library's document model, so its comments and layout stay.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isMap, isScalar, isSeq, parseAllDocuments, type YAMLMap } from "yaml";
import { installedPackageDir } from "../../config/npm-packages.ts";
import { BUILTIN_PACKAGE } from "../../config/types.ts";
import { ConfigError, SystemError, UsageError } from "../../shared/errors.ts";
import type { CliCommand } from "../command.ts";
import { EXIT } from "../command.ts";
import { textTable } from "../../shared/text-table.ts";

/** `@acme/tools@^1.2` → name `@acme/tools`, range `^1.2`; a directory (`./pkg`, `/abs/pkg`) → its package's name. */
export function splitSpec(spec: string, cwd: string): { name: string; range?: string; path?: string } {
  if (spec.startsWith(".") || spec.startsWith("/")) {
    const path = resolve(cwd, spec);
    try {
      return { name: (JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as { name: string }).name, path };
    } catch (error) {
      throw new UsageError("E_USAGE_BAD_VALUE", `${spec}: no readable package.json (${(error as Error).message})`);
    }
  }
  const at = spec.lastIndexOf("@");
  return at > 0 ? { name: spec.slice(0, at), range: spec.slice(at + 1) } : { name: spec };
}

function packageDocument(file: string) {
  const documents = parseAllDocuments(readFileSync(file, "utf8"));
  const first = Array.isArray(documents) ? documents[0] : undefined;
  if (first === undefined || first.get("kind") !== "Package")
    throw new ConfigError("E_CONFIG_PACKAGE_DOC_MISSING", `${file}: expected a Package document first`, {
      suggestion: "add a kind: Package document at the top of goondan.yaml",
    });
  return { documents, first };
}

function dependencyName(item: unknown): string | undefined {
  if (isScalar(item)) return String(item.value);
  if (isMap(item)) return String((item as YAMLMap).get("name"));
  return undefined;
}

function editDependencies(file: string, edit: (items: unknown[]) => unknown[]): void {
  const { documents, first } = packageDocument(file);
  const current = first.getIn(["spec", "dependencies"]);
  const items = isSeq(current) ? [...current.items] : [];
  const next = edit(items);
  first.setIn(["spec", "dependencies"], first.createNode(next));
  writeFileSync(file, documents.map((document) => document.toString()).join(""));
}

function npm(args: string[], cwd: string): void {
  const run = Bun.spawnSync(["npm", ...args, "--no-audit", "--no-fund"], { cwd, stdout: "inherit", stderr: "inherit" });
  if (run.exitCode !== 0)
    throw new SystemError("E_PACKAGE_NPM_FAILED", `npm ${args.join(" ")} exited with ${run.exitCode}`, {
      suggestion: "read npm's message above; check the name, the range and your registry access",
    });
}

function installedVersion(dir: string, name: string): string | undefined {
  const packageDir = installedPackageDir(dir, name);
  if (packageDir === undefined) return undefined;
  return (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version?: string }).version;
}

export const command: CliCommand = {
  name: "package",
  summary: "Add, list or remove the npm packages of goondan resources the bundle's Package depends on.",
  usage: "goondan package add NAME[@RANGE] | goondan package list | goondan package remove NAME [--bundle DIR]",
  maxPositionals: 2,
  flags: {
    bundle: { type: "string", description: "the bundle directory (default: the current directory)" },
  },
  async run({ flags, positionals, io }) {
    const dir = resolve(io.cwd, typeof flags.bundle === "string" ? flags.bundle : ".");
    const file = join(dir, "goondan.yaml");
    const [action, spec] = positionals;
    if (action === "list") {
      const { first } = packageDocument(file);
      const deps = first.getIn(["spec", "dependencies"]);
      const rows = (isSeq(deps) ? deps.items : []).map((item) => {
        const name = dependencyName(item) ?? "?";
        const range = isMap(item) ? String((item as YAMLMap).get("version") ?? "*") : "*";
        const installed = name === BUILTIN_PACKAGE ? "built in" : (installedVersion(dir, name) ?? "not installed");
        return [name, range, installed];
      });
      io.stdout(textTable(["PACKAGE", "RANGE", "INSTALLED"], rows));
      return EXIT.ok;
    }
    if ((action !== "add" && action !== "remove") || spec === undefined)
      throw new UsageError(
        "E_USAGE_BAD_VALUE",
        "expected 'package add NAME[@RANGE]', 'package list' or 'package remove NAME'",
      );
    const { name, range, path } = splitSpec(spec, io.cwd);
    if (action === "add") {
      npm(["install", "--save", path ?? (range === undefined ? name : `${name}@${range}`)], dir);
      const installed = installedVersion(dir, name);
      // npm saved the range it chose (or file:… for a directory); the Package keeps a semver range.
      const version = range ?? (installed === undefined ? "*" : `^${installed}`);
      editDependencies(file, (items) => [...items.filter((item) => dependencyName(item) !== name), { name, version }]);
      io.stdout(`added ${name} ${version} (installed ${installed ?? "?"})\n`);
      return EXIT.ok;
    }
    npm(["uninstall", name], dir);
    editDependencies(file, (items) => items.filter((item) => dependencyName(item) !== name));
    io.stdout(`removed ${name}\n`);
    return EXIT.ok;
  },
};
