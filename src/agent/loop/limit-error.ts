/**
 * Whether an error is a limit of docs/limits.md ending the turn (`E_BUDGET_EXCEEDED`, `E_LIMIT_*`): such an error
 * keeps its code in the turn's answer instead of becoming `E_AGENT_TURN_FAILED`.
 */
import { type GoondanError, isGoondanError } from "../../shared/errors.ts";

export const isLimitError = (error: unknown): error is GoondanError =>
  isGoondanError(error) && /^E_(BUDGET_|LIMIT_)/.test(error.code);
