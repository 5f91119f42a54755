/** A resource together with the document it came from and the refs it wrote: the unit every check reads. */
import type { AnyResource, Kind } from "./types.ts";
import type { JsonObject } from "../shared/json.ts";
import type { DocumentSite } from "./issues.ts";
import type { RefUse, WrongKindRef } from "./normalize.ts";

export interface LoadedResource {
  resource: AnyResource;
  site: DocumentSite;
  refs: RefUse[];
  /** Refs written in a field that takes another kind (E_CONFIG_REF_KIND, reported by check-refs). */
  wrongKindRefs: WrongKindRef[];
  builtin: boolean;
  /** The document as written (for checks that care about spelling, e.g. `prompt` vs `prompts`). */
  raw: JsonObject;
}

/** Names of resources whose document was invalid: refs to them are not reported as missing. */
export type InvalidNames = Map<Kind, Set<string>>;
