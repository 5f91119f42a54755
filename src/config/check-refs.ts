/**
 * Ref resolution at load time: every ObjectRef a local resource writes must name an existing resource
 * of its kind, in this bundle or, for `package: "@goondan/base"` or a bare Tool/Extension/Connector name
 * not defined locally, among the built-ins (the ref then gets `package: "@goondan/base"`). A missing ref
 * is reported with the names that do exist, closest first; so is a ref to the wrong kind (E_CONFIG_REF_KIND),
 * with the resources of the kind the field takes.
 */
import { BUILTIN_PACKAGE, type Kind } from "./types.ts";
import type { IssueList } from "./issues.ts";
import type { InvalidNames, LoadedResource } from "./loaded-resource.ts";
import { closestFirst, didYouMean, joinSuggestions } from "./suggest.ts";

/** Kinds a bare ref may find among the built-ins. */
export const BUILTIN_KINDS: readonly Kind[] = ["Tool", "Extension", "Connector"];

export interface RefIndex {
  local: Map<string, LoadedResource>;
  builtin: Map<string, LoadedResource>;
  /** The resources of the npm packages the bundle depends on (npm-packages.ts), by package name. */
  packages?: Map<string, Map<string, LoadedResource>>;
  invalidNames: InvalidNames;
  packageName?: string;
}

export function buildRefIndex(options: {
  local: LoadedResource[];
  builtin: LoadedResource[];
  invalidNames: InvalidNames;
  packages?: Map<string, LoadedResource[]>;
}): RefIndex {
  const local = new Map<string, LoadedResource>();
  for (const loaded of options.local) {
    const key = `${loaded.resource.kind}/${loaded.resource.metadata.name}`;
    if (!local.has(key)) local.set(key, loaded);
  }
  const builtin = new Map(
    options.builtin.map((loaded) => [`${loaded.resource.kind}/${loaded.resource.metadata.name}`, loaded] as const),
  );
  const packageResource = options.local.find((loaded) => loaded.resource.kind === "Package");
  return {
    local,
    builtin,
    invalidNames: options.invalidNames,
    ...(options.packages === undefined
      ? {}
      : {
          packages: new Map(
            [...options.packages].map(([name, resources]) => [
              name,
              new Map(resources.map((loaded) => [`${loaded.resource.kind}/${loaded.resource.metadata.name}`, loaded])),
            ]),
          ),
        }),
    ...(packageResource ? { packageName: packageResource.resource.metadata.name } : {}),
  };
}

/** Checks every ref of the local resources; returns the built-in resources they use. */
export function checkRefs(options: {
  resources: LoadedResource[];
  index: RefIndex;
  issues: IssueList;
}): LoadedResource[] {
  const { index, issues } = options;
  const usedBuiltins = new Set<LoadedResource>();
  for (const loaded of options.resources) {
    for (const use of loaded.refs) {
      const { ref } = use;
      const key = `${ref.kind}/${ref.name}`;
      const wantsBuiltin = ref.package === BUILTIN_PACKAGE;
      const foreign = ref.package !== undefined && !wantsBuiltin && ref.package !== index.packageName;
      if (!wantsBuiltin && !foreign) {
        if (index.local.has(key) || index.invalidNames.get(ref.kind)?.has(ref.name)) continue;
      }
      if (foreign && index.packages?.get(ref.package as string)?.has(key)) continue;
      const builtin =
        !foreign && (wantsBuiltin || BUILTIN_KINDS.includes(ref.kind)) ? index.builtin.get(key) : undefined;
      if (builtin) {
        ref.package = BUILTIN_PACKAGE;
        usedBuiltins.add(builtin);
        continue;
      }
      issues.at(loaded.site, use.segments, {
        code: "E_CONFIG_REF_NOT_FOUND",
        message: `${ref.package ? `${ref.package}:` : ""}${key} not found`,
        suggestion: foreign
          ? index.packages?.has(ref.package as string)
            ? `${ref.package} defines no ${key}`
            : `name ${ref.package} in the Package's spec.dependencies and npm install it, or drop "package: ${ref.package}"`
          : definedNames({ kind: ref.kind, name: ref.name, index, builtinOnly: wantsBuiltin }),
      });
    }
  }
  return [...usedBuiltins];
}

/** Reports refs written in a field that takes another kind, listing the resources of the expected kind. */
export function checkRefKinds(options: { resources: LoadedResource[]; index: RefIndex; issues: IssueList }): void {
  for (const loaded of options.resources) {
    for (const wrong of loaded.wrongKindRefs) {
      const name = wrong.written.slice(wrong.written.lastIndexOf("/") + 1);
      const names = namesOfKind({ kind: wrong.expected, index: options.index, builtinOnly: false });
      options.issues.at(loaded.site, wrong.segments, {
        code: "E_CONFIG_REF_KIND",
        message: `expected a ref to a ${wrong.expected}, found ${wrong.written}`,
        suggestion:
          names.length === 0
            ? `no ${wrong.expected} is defined; add one or remove this ref`
            : `refer to one of the defined ${wrong.expected.toLowerCase()}s: ${closestFirst(name, names)
                .map((candidate) => `${wrong.expected}/${candidate}`)
                .join(", ")}`,
      });
    }
  }
}

function namesOfKind(options: { kind: Kind; index: RefIndex; builtinOnly: boolean }): string[] {
  const { kind, index } = options;
  const names: string[] = [];
  const prefix = `${kind}/`;
  if (!options.builtinOnly)
    for (const key of index.local.keys()) if (key.startsWith(prefix)) names.push(key.slice(prefix.length));
  if (options.builtinOnly || BUILTIN_KINDS.includes(kind))
    for (const key of index.builtin.keys()) if (key.startsWith(prefix)) names.push(key.slice(prefix.length));
  return names;
}

function definedNames(options: { kind: Kind; name: string; index: RefIndex; builtinOnly: boolean }): string {
  const { kind } = options;
  const names = namesOfKind(options);
  const plural = `${kind.toLowerCase()}s`;
  if (names.length === 0) return `no ${kind} is defined${options.builtinOnly ? ` in ${BUILTIN_PACKAGE}` : ""}`;
  return (
    joinSuggestions(
      didYouMean(options.name, names, (name) => `${kind}/${name}`),
      `defined ${plural}: ${closestFirst(options.name, names).join(", ")}`,
    ) ?? ""
  );
}
