/**
 * Turning the parsed documents of one file into resources: non-object documents, missing or unknown
 * apiVersion and kind, the Package rules (at most one per file, and only as the first document of the
 * bundle's goondan.yaml), then schema validation and normalization of each document.
 */
import type { JsonObject } from "../shared/json.ts";
import { isJsonObject } from "../shared/json.ts";
import { API_VERSION, KINDS, type Kind } from "./types.ts";
import { describeFound, type IssueList } from "./issues.ts";
import { isKind } from "./object-ref.ts";
import { normalizeResource } from "./normalize.ts";
import type { ParsedDocument } from "./read-documents.ts";
import { validateDocument } from "./schema-validator.ts";
import { likelyMeant } from "./suggest.ts";
import type { InvalidNames, LoadedResource } from "./loaded-resource.ts";

export interface CollectedResources {
  resources: LoadedResource[];
  invalidNames: InvalidNames;
}

export interface CollectResourcesOptions {
  documents: ParsedDocument[];
  issues: IssueList;
  file: string;
  baseDir: string;
  builtin: boolean;
  /** The package the resources belong to; a Package first in the main file names it when unset. */
  packageName?: string;
  /** Whether this is the bundle's goondan.yaml, the one file that may hold the Package document. Default: true. */
  mainFile?: boolean;
}

export function collectResources(options: CollectResourcesOptions): CollectedResources {
  const { documents, issues } = options;
  const mainFile = options.mainFile ?? true;
  const resources: LoadedResource[] = [];
  const invalidNames: InvalidNames = new Map();
  let packageName = options.packageName;
  let seenResource = false;
  let seenPackage = false;
  for (const { site, value } of documents) {
    if (value === null) continue;
    const first = !seenResource;
    seenResource = true;
    if (!isJsonObject(value)) {
      issues.at(site, [], {
        code: "E_CONFIG_DOCUMENT_NOT_OBJECT",
        message: `expected a mapping with apiVersion, kind, metadata and spec, found ${Array.isArray(value) ? "a list" : describeFound(value)}`,
      });
      continue;
    }
    const kind = checkEnvelope({ value, site, issues });
    if (!kind) {
      rememberName(invalidNames, value);
      continue;
    }
    if (kind === "Package") {
      checkPackagePlace({ site, issues, first, mainFile, seenPackage });
      seenPackage = true;
    }
    if (!validateDocument({ kind, value, site, issues })) {
      rememberName(invalidNames, value, kind);
      continue;
    }
    if (kind === "Package" && first && mainFile) packageName = (value.metadata as JsonObject).name as string;
    const source = {
      file: options.file,
      docIndex: site.docIndex,
      baseDir: options.baseDir,
      ...(packageName ? { package: packageName } : {}),
    };
    const { resource, refs, wrongKindRefs } = normalizeResource({ kind, value, site, issues, source });
    resources.push({ resource, site, refs, wrongKindRefs, builtin: options.builtin, raw: value });
  }
  return { resources, invalidNames };
}

function checkPackagePlace(options: {
  site: ParsedDocument["site"];
  issues: IssueList;
  first: boolean;
  mainFile: boolean;
  seenPackage: boolean;
}): void {
  const { site, issues } = options;
  if (options.seenPackage) {
    issues.at(site, ["kind"], {
      code: "E_CONFIG_PACKAGE_DOC_DUPLICATED",
      message: `expected at most one Package document per file, found another at document ${site.docIndex}`,
      suggestion: "keep one Package document, first in goondan.yaml",
    });
  } else if (!options.mainFile) {
    issues.at(site, ["kind"], {
      code: "E_CONFIG_PACKAGE_DOC_POSITION",
      message: `expected the Package document first in goondan.yaml, found it in ${site.label}`,
      suggestion: "move the Package document to the top of goondan.yaml",
    });
  } else if (!options.first) {
    issues.at(site, ["kind"], {
      code: "E_CONFIG_PACKAGE_DOC_POSITION",
      message: `expected the Package document to be the first document, found it at document ${site.docIndex}`,
      suggestion: "move the Package document to the top of goondan.yaml",
    });
  }
}

function checkEnvelope(options: {
  value: JsonObject;
  site: ParsedDocument["site"];
  issues: IssueList;
}): Kind | undefined {
  const { value, site, issues } = options;
  let ok = true;
  if (value.apiVersion === undefined) {
    issues.at(site, [], {
      code: "E_CONFIG_UNSUPPORTED_API_VERSION",
      message: `expected apiVersion: ${API_VERSION}, found none`,
      suggestion: `add "apiVersion: ${API_VERSION}"`,
    });
    ok = false;
  } else if (value.apiVersion !== API_VERSION) {
    const legacy = typeof value.apiVersion === "string" && value.apiVersion.startsWith("agents.example.io/");
    issues.at(site, ["apiVersion"], {
      code: "E_CONFIG_UNSUPPORTED_API_VERSION",
      message: `expected apiVersion ${API_VERSION}, found ${describeFound(value.apiVersion)}`,
      suggestion: legacy
        ? `this is a goondan v1 document; write "apiVersion: ${API_VERSION}" and convert its v1 fields (e.g. Swarm entrypoint → entryAgent, Model name → model)`
        : `write "apiVersion: ${API_VERSION}"`,
    });
    ok = false;
  }
  if (value.kind === undefined) {
    issues.at(site, [], {
      code: "E_CONFIG_MISSING_KIND",
      message: `expected a kind (one of ${KINDS.join(", ")}), found none`,
    });
    return undefined;
  }
  if (typeof value.kind !== "string" || !isKind(value.kind)) {
    const meant = typeof value.kind === "string" ? likelyMeant(value.kind, KINDS) : undefined;
    issues.at(site, ["kind"], {
      code: "E_CONFIG_UNKNOWN_KIND",
      message: `expected a kind among ${KINDS.join(", ")}, found ${describeFound(value.kind)}`,
      suggestion: meant ? `did you mean ${meant}?` : undefined,
    });
    return undefined;
  }
  return ok ? value.kind : undefined;
}

function rememberName(invalidNames: InvalidNames, value: JsonObject, kind?: Kind): void {
  const writtenKind = kind ?? (typeof value.kind === "string" && isKind(value.kind) ? value.kind : undefined);
  const name = isJsonObject(value.metadata) ? value.metadata.name : undefined;
  if (!writtenKind || typeof name !== "string") return;
  const names = invalidNames.get(writtenKind) ?? new Set<string>();
  names.add(name);
  invalidNames.set(writtenKind, names);
}
