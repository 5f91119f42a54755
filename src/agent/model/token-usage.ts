/**
 * The tokens one model call used, as the provider counted them: summed per step, per turn, and handed to extensions
 * (`api.model`) with each answer.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}
