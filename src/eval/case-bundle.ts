/**
 * The bundle one side of an eval runs, made from the loaded one in memory (agent children run exactly the bundle
 * snapshot the orchestrator hands them): with `--model-override NAME` every Agent of the Swarm calls Model/NAME;
 * with `--replay` every Model answers from the case's cassette. Recording needs no change to the bundle: the
 * daemon's children append to the cassette named in their environment.
 */
import { ConfigError } from "../shared/errors.ts";
import { closestFirst } from "../config/suggest.ts";
import type { AnyResource, Bundle, ModelResource } from "../config/types.ts";

/** Every Agent calls Model/`model` instead of its own; throws E_EVAL_MODEL_NOT_FOUND (naming `flag`) when there is none. */
export function overrideModel(bundle: Bundle, model: string, flag = "--model-override"): Bundle {
  const models = bundle.resources
    .filter((resource) => resource.kind === "Model")
    .map((resource) => resource.metadata.name);
  if (!models.includes(model))
    throw new ConfigError("E_EVAL_MODEL_NOT_FOUND", `${flag}: Model/${model} not found in ${bundle.file}`, {
      suggestion:
        models.length === 0
          ? "the bundle defines no Model"
          : `defined models: ${closestFirst(model, models).join(", ")}`,
    });
  return mapResources(bundle, (resource) =>
    resource.kind === "Agent"
      ? {
          ...resource,
          spec: {
            ...resource.spec,
            modelConfig: { ...resource.spec.modelConfig, modelRef: { kind: "Model", name: model } },
          },
        }
      : resource,
  );
}

/** Every Model answers from `cassette` (an absolute path) with no network. */
export function replayFrom(bundle: Bundle, cassette: string): Bundle {
  return mapResources(bundle, (resource) =>
    resource.kind === "Model"
      ? ({
          ...resource,
          spec: { provider: "replay", model: resource.spec.model, options: { cassette } },
        } satisfies ModelResource)
      : resource,
  );
}

function mapResources(bundle: Bundle, map: (resource: AnyResource) => AnyResource): Bundle {
  return { ...bundle, resources: bundle.resources.map(map) };
}
