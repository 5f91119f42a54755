/**
 * The orchestrator's permit broker for model calls (docs/limits.md): it answers the `model_permit` and
 * `model_usage` runtime calls of agent children (protocol/model-permit.ts). A permit is refused with
 * `E_BUDGET_EXCEEDED` when a budget of the calling instance is used up (budget-ledger.ts), else granted when the
 * Model's pacing lets the call go (model-pacer.ts, one per Model with `spec.rateLimit`, shared by all its
 * processes). A usage report counts the call's tokens against the budgets and the Model's tokens per minute, or
 * pauses the Model after a 429. The bundle is read again whenever the orchestrator's current one changes (a reload).
 */
import { agentModel, selectSwarm, swarmAgents } from "../../config/resolve.ts";
import type { AgentResource, Bundle, ModelRateLimit, ModelResource } from "../../config/types.ts";
import type { ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import type { ModelPermitGrant } from "../../protocol/model-permit.ts";
import type { Clock } from "../../shared/clock.ts";
import { describe, isGoondanError } from "../../shared/errors.ts";
import { isJsonObject, type JsonObject } from "../../shared/json.ts";
import type { Logger } from "../../shared/logger.ts";
import type { Store } from "../../store/store.ts";
import { BudgetLedger, type BudgetStatus } from "./budget-ledger.ts";
import { ModelPacer } from "./model-pacer.ts";

/** The instance asking (an Instance). */
export interface PermitRequester {
  readonly agent: string;
  readonly instanceKey: string;
  runtimeResult(result: ParentToChild["runtime_result"]): void;
}

export interface PermitBrokerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  bundle: () => Bundle;
  /** The selected Swarm's name (undefined: the bundle's only one) and its instanceKey. */
  swarmName: () => string | undefined;
  swarmKey: () => string;
}

const PERMIT_METHODS = new Set<string>(["model_permit", "model_usage"]);

export class PermitBroker {
  readonly ledger: BudgetLedger;
  private readonly pacers = new Map<string, { pacer: ModelPacer; rateLimit: string }>();
  private modelOf = new Map<string, string>();
  private configured: Bundle | undefined;

  constructor(private readonly options: PermitBrokerOptions) {
    this.ledger = new BudgetLedger({ counters: options.store.budgets, clock: options.clock, logger: options.logger });
    this.configure();
  }

  /** Whether a runtime call is one of the broker's. */
  static handles(call: ChildToParent["runtime_call"]): boolean {
    return PERMIT_METHODS.has(call.method);
  }

  async handle(requester: PermitRequester, call: ChildToParent["runtime_call"]): Promise<void> {
    try {
      this.configure();
      const args: JsonObject = isJsonObject(call.args) ? call.args : {};
      const value = call.method === "model_permit" ? await this.permit(requester) : await this.usage(requester, args);
      requester.runtimeResult({ callId: call.callId, ok: true, value: value as JsonObject });
    } catch (error) {
      const code = isGoondanError(error) ? error.code : "E_RUNTIME_INTERNAL";
      requester.runtimeResult({ callId: call.callId, ok: false, error: { code, message: describe(error).message } });
    }
  }

  /** The budgets with a counter in their current window (`ps`, `/metrics`). */
  budgets(): Promise<BudgetStatus[]> {
    return this.ledger.status(this.options.swarmKey());
  }

  private async permit(requester: PermitRequester): Promise<ModelPermitGrant> {
    await this.ledger.check(this.caller(requester));
    const pacer = this.pacerOf(requester.agent);
    return { waitedMs: pacer === undefined ? 0 : await pacer.acquire() };
  }

  private async usage(requester: PermitRequester, args: JsonObject): Promise<JsonObject> {
    const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);
    const pacer = this.pacerOf(requester.agent);
    const throttledMs = count(args.throttledMs);
    if (throttledMs > 0) pacer?.throttled(throttledMs);
    const inputTokens = count(args.inputTokens);
    const outputTokens = count(args.outputTokens);
    if (inputTokens + outputTokens === 0) return {};
    pacer?.spent(inputTokens + outputTokens);
    await this.ledger.record(this.caller(requester), { inputTokens, outputTokens });
    return {};
  }

  private caller(requester: PermitRequester) {
    return { swarm: this.options.swarmKey(), agent: requester.agent, instanceKey: requester.instanceKey };
  }

  private pacerOf(agent: string): ModelPacer | undefined {
    const model = this.modelOf.get(agent);
    return model === undefined ? undefined : this.pacers.get(model)?.pacer;
  }

  /** Reads the current bundle when it changed: budgets, each agent's Model, and a pacer per paced Model. */
  private configure(): void {
    const bundle = this.options.bundle();
    if (bundle === this.configured) return;
    const swarmName = this.options.swarmName();
    this.ledger.configure(bundle, swarmName);
    const modelOf = new Map<string, string>();
    const paced = new Map<string, ModelRateLimit>();
    for (const agent of swarmAgents(bundle, selectSwarm(bundle, swarmName))) {
      const model = modelOrUndefined(bundle, agent);
      if (model === undefined) continue;
      modelOf.set(agent.metadata.name, model.metadata.name);
      if (model.spec.rateLimit !== undefined) paced.set(model.metadata.name, model.spec.rateLimit);
    }
    for (const name of [...this.pacers.keys()]) if (!paced.has(name)) this.pacers.delete(name);
    for (const [name, rateLimit] of paced) {
      // A pacer whose limits did not change keeps its state (its queue, a 429 pause) across a reload.
      if (this.pacers.get(name)?.rateLimit === JSON.stringify(rateLimit)) continue;
      this.pacers.set(name, {
        pacer: new ModelPacer({ rateLimit, clock: this.options.clock }),
        rateLimit: JSON.stringify(rateLimit),
      });
    }
    this.modelOf = modelOf;
    this.configured = bundle;
  }
}

/** The agent's Model; undefined for a bundle built by hand without it (its children never ask for a permit). */
function modelOrUndefined(bundle: Bundle, agent: AgentResource): ModelResource | undefined {
  try {
    return agentModel(bundle, agent);
  } catch {
    return undefined;
  }
}
