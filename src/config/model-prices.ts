/**
 * What a Model's tokens cost, for the costs `goondan eval` reports and the budgets of docs/limits.md: `spec.pricing` when the Model sets it, else a
 * default for a few well-known model ids (US dollars per million tokens, list prices as published by their
 * providers when this table was written; docs/evals.md lists them), else unknown. A `replay` Model costs nothing:
 * its tokens were paid for when the cassette was recorded.
 */
import type { ModelPricing, ModelResource } from "./types.ts";

/** Tokens in and out (eval-report.ts TokenCount has this shape). */
export interface TokenCount {
  input: number;
  output: number;
}

/** Default prices by model id prefix, longest prefix first when looked up. */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPricing>> = {
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 },
  "gpt-4.1-mini": { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  "gpt-4.1-nano": { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  "gpt-4.1": { inputPerMillion: 2, outputPerMillion: 8 },
  "claude-3-5-haiku": { inputPerMillion: 0.8, outputPerMillion: 4 },
  "claude-haiku-4-5": { inputPerMillion: 1, outputPerMillion: 5 },
  "claude-sonnet-4": { inputPerMillion: 3, outputPerMillion: 15 },
  "claude-opus-4": { inputPerMillion: 15, outputPerMillion: 75 },
  "gemini-2.5-flash": { inputPerMillion: 0.3, outputPerMillion: 2.5 },
  "gemini-2.5-pro": { inputPerMillion: 1.25, outputPerMillion: 10 },
};

const FREE: ModelPricing = { inputPerMillion: 0, outputPerMillion: 0 };

/** The Model's prices, or undefined when neither it nor the default table knows them. */
export function modelPricing(model: ModelResource): ModelPricing | undefined {
  if (model.spec.pricing) return model.spec.pricing;
  if (model.spec.provider === "replay") return FREE;
  const prefix = Object.keys(DEFAULT_MODEL_PRICES)
    .filter((key) => model.spec.model.startsWith(key))
    .sort((left, right) => right.length - left.length)[0];
  return prefix === undefined ? undefined : DEFAULT_MODEL_PRICES[prefix];
}

/** US dollars for these tokens at these prices; null when the prices are unknown. */
export function tokenCost(tokens: TokenCount, pricing: ModelPricing | undefined): number | null {
  if (pricing === undefined) return tokens.input + tokens.output === 0 ? 0 : null;
  return (tokens.input * pricing.inputPerMillion + tokens.output * pricing.outputPerMillion) / 1_000_000;
}

/** A sum of costs that stays null once one part is unknown. */
export function addCosts(...costs: (number | null)[]): number | null {
  let total = 0;
  for (const cost of costs) {
    if (cost === null) return null;
    total += cost;
  }
  return total;
}
