/**
 * The dependencies a bundle's Package names, resolved from npm's `node_modules` as Node resolves a package (the
 * bundle's directory, then each parent's): each installed package's own goondan.yaml is read as a bundle whose
 * Tools, Extensions and Connectors are referenced as `{kind, name, package: "@acme/goondan-tools"}`. A version
 * range (`{name, version}`) is checked against the installed package.json by semver. A dependency some ref
 * names that is not installed, or any installed one whose version is out of range, is a config error naming the
 * `npm install` to run; a dependency no ref names and nobody installed is left alone (a public bundle may list
 * packages it does not use).
 * `@goondan/base` is built in and never looked up.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import semver from "semver";
import { collectResources } from "./collect-resources.ts";
import type { IssueList } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { readDocuments } from "./read-documents.ts";
import { BUILTIN_PACKAGE } from "./types.ts";

/** The directory npm installed `name` into, for a bundle in `dir`, or undefined. */
export function installedPackageDir(dir: string, name: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    const candidate = join(current, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(current) === current) return undefined;
  }
}

function installedVersion(packageDir: string): string | undefined {
  try {
    const version = (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version?: unknown })
      .version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}

const installCommand = (name: string, range: string | undefined) =>
  `npm install ${range === undefined ? name : `${name}@"${range}"`}`;

/** Every resource of every installed dependency (Package documents left out), by package name. */
export async function loadNpmPackages(options: {
  dir: string;
  local: LoadedResource[];
  issues: IssueList;
}): Promise<Map<string, LoadedResource[]>> {
  const { dir, issues } = options;
  const packages = new Map<string, LoadedResource[]>();
  const owner = options.local.find((loaded) => loaded.resource.kind === "Package");
  if (owner === undefined || owner.resource.kind !== "Package") return packages;
  const spec = owner.resource.spec;
  const referenced = new Set(options.local.flatMap((loaded) => loaded.refs.map((use) => use.ref.package)));
  for (const [index, name] of (spec.dependencies ?? []).entries()) {
    if (name === BUILTIN_PACKAGE || packages.has(name)) continue;
    const range = spec.dependencyVersions?.[name];
    const segments = ["spec", "dependencies", index];
    const packageDir = installedPackageDir(dir, name);
    if (packageDir === undefined) {
      if (!referenced.has(name)) continue;
      issues.at(owner.site, segments, {
        code: "E_CONFIG_PACKAGE_NOT_INSTALLED",
        message: `expected package ${name} in node_modules beside the bundle, found none`,
        suggestion: `run ${installCommand(name, range)} in ${dir}`,
      });
      continue;
    }
    const version = installedVersion(packageDir);
    if (
      range !== undefined &&
      semver.validRange(range) !== null &&
      (version === undefined || !semver.satisfies(version, range))
    ) {
      issues.at(owner.site, segments, {
        code: "E_CONFIG_PACKAGE_VERSION_MISMATCH",
        message: `expected ${name} ${range}, found ${version ?? "no version"} installed`,
        suggestion: `run ${installCommand(name, range)} in ${dir}`,
      });
      continue;
    }
    const file = join(packageDir, "goondan.yaml");
    if (!existsSync(file) || !statSync(file).isFile()) {
      issues.at(owner.site, segments, {
        code: "E_CONFIG_PACKAGE_NO_BUNDLE",
        message: `expected ${name} to hold a goondan.yaml, found none in ${packageDir}`,
        suggestion: "depend only on packages published as goondan bundles",
      });
      continue;
    }
    const label = relative(dir, file) || file;
    const { documents } = await readDocuments({ file, label, issues });
    const { resources } = collectResources({
      documents,
      issues,
      file,
      baseDir: packageDir,
      builtin: false,
      mainFile: true,
      packageName: name,
    });
    packages.set(
      name,
      resources.filter((loaded) => loaded.resource.kind !== "Package"),
    );
  }
  return packages;
}
