/**
 * Turns a Model resource into an AI SDK LanguageModelV3: `anthropic`, `openai`, `google` and
 * `openai-compatible` through their `@ai-sdk/*` providers (imported lazily, so a child loads only the provider
 * its agent uses), each honouring `endpoint` as base URL and the resolved `apiKey`, and where the Model names
 * neither, the provider's standard variables (config/provider-env.ts: the Model first, then the environment,
 * then the provider's default); and `replay` (a cassette, no network). Whether calls stream (`options.stream`, see `modelStreams`) and the sampling params (temperature,
 * maxTokens, topP) are applied per call by generate-step.ts, not here.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { resolveCassette } from "../../config/cassette-file.ts";
import { providerEnvSettings } from "../../config/provider-env.ts";
import type { ModelResource } from "../../config/types.ts";
import { ConfigError } from "../../shared/errors.ts";
import { createReplayModel } from "./replay-model.ts";

export interface CreateLanguageModelOptions {
  resource: ModelResource;
  /** The resolved `spec.apiKey` ValueSource (never logged). Undefined: the provider's variable in `env`. */
  apiKey?: string;
  /** Where the provider's standard variables are read (default: none, so only the Model's own settings count). */
  env?: Record<string, string | undefined>;
  /** For tests: a fetch the HTTP providers use. */
  fetch?: typeof fetch;
}

function settings(options: CreateLanguageModelOptions): { apiKey?: string; baseURL?: string; fetch?: typeof fetch } {
  const spec = options.resource.spec;
  const fromEnv = providerEnvSettings(spec.provider, options.env ?? {});
  const apiKey = options.apiKey ?? fromEnv.apiKey;
  const baseURL = spec.endpoint ?? fromEnv.baseURL;
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
}

async function baseModel(options: CreateLanguageModelOptions): Promise<LanguageModelV3> {
  const { resource } = options;
  const spec = resource.spec;
  const where = `Model/${resource.metadata.name}`;
  switch (spec.provider) {
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic(settings(options))(spec.model);
    }
    case "openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      const provider = createOpenAI(settings(options));
      return spec.options?.api === "chat" ? provider.chat(spec.model) : provider(spec.model);
    }
    case "google": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      return createGoogleGenerativeAI(settings(options))(spec.model);
    }
    case "openai-compatible": {
      if (spec.endpoint === undefined)
        throw new ConfigError(
          "E_CONFIG_MODEL_ENDPOINT_MISSING",
          `${where}: provider openai-compatible needs spec.endpoint (the API base URL, e.g. http://127.0.0.1:8000/v1)`,
        );
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({
        name: resource.metadata.name,
        baseURL: spec.endpoint,
        includeUsage: true,
        ...settings(options),
      }).chatModel(spec.model);
    }
    case "replay": {
      const cassette = spec.options?.cassette;
      if (typeof cassette !== "string")
        throw new ConfigError(
          "E_CONFIG_CASSETTE_MISSING",
          `${where}: provider replay needs spec.options.cassette (a bundle-relative JSONL file)`,
        );
      return createReplayModel({
        cassette: resolveCassette({ baseDir: resource.source.baseDir, cassette, where }),
        modelId: spec.model,
      });
    }
    default:
      throw new ConfigError(
        "E_CONFIG_MODEL_PROVIDER",
        `${where}: unknown provider ${JSON.stringify(spec.provider)}; expected anthropic, openai, google, openai-compatible or replay`,
      );
  }
}

/**
 * The models of the HTTP providers made so far in this process, by everything that goes into one. Such a model is
 * only its settings, so the instances an agent process holds share one: making it builds the provider's schemas
 * again, over 100 µs a time. A `replay` model keeps its place in the cassette, so each instance gets its own, and
 * so does a caller that brings its own fetch (tests).
 */
const madeModels = new Map<string, Promise<LanguageModelV3>>();

export function createLanguageModel(options: CreateLanguageModelOptions): Promise<LanguageModelV3> {
  const spec = options.resource.spec;
  if (spec.provider === "replay" || options.fetch !== undefined) return baseModel(options);
  const { apiKey, baseURL } = settings(options);
  const key = JSON.stringify([
    options.resource.metadata.name,
    spec.provider,
    spec.model,
    spec.endpoint,
    spec.options?.api,
    apiKey,
    baseURL,
  ]);
  let made = madeModels.get(key);
  if (made === undefined) {
    made = baseModel(options);
    madeModels.set(key, made);
    made.catch(() => madeModels.delete(key));
  }
  return made;
}

/** Whether calls to this Model go over the provider's stream (`spec.options.stream: true`): text then arrives as it is written. */
export function modelStreams(resource: ModelResource): boolean {
  return resource.spec.options?.stream === true;
}
