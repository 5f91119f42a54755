/**
 * The built-in package `@goondan/base` (src/base/goondan.yaml), loaded once per process with the same
 * reader, schemas and name checks as a bundle. Its resources carry `source.package = "@goondan/base"` and
 * entries relative to src/base/. An issue inside it is our bug, so it throws a SystemError.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { SystemError } from "../shared/errors.ts";
import { BUILTIN_PACKAGE } from "./types.ts";
import { IssueList } from "./issues.ts";
import { readDocuments } from "./read-documents.ts";
import { collectResources } from "./collect-resources.ts";
import { checkNames } from "./check-names.ts";
import { checkParameters } from "./check-parameters.ts";
import { buildRefIndex, checkRefKinds } from "./check-refs.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { checkFiles } from "./check-files.ts";
import { checkToolModules } from "./check-tool-modules.ts";
import type { ConfigIssue } from "./types.ts";

export const BUILTIN_FILE = fileURLToPath(new URL("../base/goondan.yaml", import.meta.url));
export const BUILTIN_LABEL = `${BUILTIN_PACKAGE}/goondan.yaml`;

let cached: Promise<LoadedResource[]> | undefined;

/** The built-in Tools, Extensions and Connectors (not the Package document itself). */
export function loadBuiltinPackage(): Promise<LoadedResource[]> {
  cached ??= readBuiltins().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function readBuiltins(): Promise<LoadedResource[]> {
  const issues = new IssueList();
  const { documents } = await readDocuments({ file: BUILTIN_FILE, label: BUILTIN_LABEL, issues });
  const { resources } = collectResources({
    documents,
    issues,
    file: BUILTIN_FILE,
    baseDir: dirname(BUILTIN_FILE),
    builtin: true,
    packageName: BUILTIN_PACKAGE,
  });
  checkNames({ resources, issues });
  checkRefKinds({
    resources,
    index: buildRefIndex({ local: resources, builtin: [], invalidNames: new Map() }),
    issues,
  });
  checkParameters({ resources, issues });
  if (issues.errors.length > 0) {
    const lines = issues.errors.map((issue) => `${issue.path}: ${issue.code} ${issue.message}`);
    throw new SystemError(
      "E_BUILTIN_PACKAGE_INVALID",
      `the built-in package ${BUILTIN_PACKAGE} is invalid:\n${lines.join("\n")}`,
    );
  }
  return resources.filter((loaded) => loaded.resource.kind !== "Package");
}

/** The file-level checks of the built-ins (entries exist, Tool modules match their exports), for our own tests. */
export async function checkBuiltinPackage(): Promise<{ errors: ConfigIssue[]; warnings: ConfigIssue[] }> {
  const issues = new IssueList();
  const resources = await loadBuiltinPackage();
  checkFiles({ resources, issues });
  await checkToolModules({ resources, issues });
  return { errors: issues.errors, warnings: issues.warnings };
}
