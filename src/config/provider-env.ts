/**
 * The standard environment variables of each AI SDK provider, and the one precedence goondan applies to them:
 * a Model's own `spec.endpoint` / `spec.apiKey` first, then these variables, then the provider's default URL
 * (a missing key then fails the call with E_MODEL_API_KEY_MISSING). The orchestrator passes an agent's child the
 * variables of its Model's provider that are set (child-environment.ts keeps everything else out), and the
 * child's model factory reads them. They never reach a tool's command: tools get a scrubbed environment.
 */
import type { ModelProvider } from "./types.ts";

export interface ProviderEnvNames {
  /** The key a Model without `spec.apiKey` uses. */
  apiKey?: string;
  /** The base URL a Model without `spec.endpoint` uses. */
  baseURL?: string;
}

/**
 * By provider. `GOOGLE_GENERATIVE_AI_BASE_URL` is goondan's (the AI SDK reads no base URL for Google); the
 * others are the names the AI SDK providers document.
 */
export const PROVIDER_ENV: Readonly<Partial<Record<ModelProvider, ProviderEnvNames>>> = {
  anthropic: { apiKey: "ANTHROPIC_API_KEY", baseURL: "ANTHROPIC_BASE_URL" },
  openai: { apiKey: "OPENAI_API_KEY", baseURL: "OPENAI_BASE_URL" },
  google: { apiKey: "GOOGLE_GENERATIVE_AI_API_KEY", baseURL: "GOOGLE_GENERATIVE_AI_BASE_URL" },
};

/** The variable names a provider reads (none for openai-compatible and replay). */
export function providerEnvNames(provider: ModelProvider): string[] {
  const names = PROVIDER_ENV[provider];
  return names === undefined ? [] : [names.apiKey, names.baseURL].filter((name) => name !== undefined);
}

/** What a provider reads from `env`: each value set and non-empty. */
export function providerEnvSettings(
  provider: ModelProvider,
  env: Record<string, string | undefined>,
): { apiKey?: string; baseURL?: string } {
  const names = PROVIDER_ENV[provider] ?? {};
  const read = (name: string | undefined) => (name === undefined || env[name] === "" ? undefined : env[name]);
  const apiKey = read(names.apiKey);
  const baseURL = read(names.baseURL);
  return { ...(apiKey === undefined ? {} : { apiKey }), ...(baseURL === undefined ? {} : { baseURL }) };
}
