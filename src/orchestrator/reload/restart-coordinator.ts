/**
 * The restart coordinator: one place where every "restart" asks ends up (the self-restart tool's
 * runtime call, SIGHUP, `goondan restart`, `POST /v1/restart`). It validates the bundle on disk before
 * answering, so an invalid bundle is reported to the asker and the running swarm stays as it is; a
 * valid request is batched with the others that arrive within a short window (a restart storm becomes
 * one reload), waits until the asking turns have committed, then re-validates and calls `reload` once.
 * Requests may name everything, one agent, or one instance of an agent (`--agent A --instance K`); what
 * restarts and what is cleared are merged separately (restart-scope.ts), so `--fresh` reaches only the
 * agents and instances a fresh request named. In a cluster, a batch holding any request made on this node is
 * announced to the other nodes (`ReloadPlan.announce`); one made only of requests relayed from another node's
 * announcement (`relayed`) is applied here and announced to nobody.
 */
import type { Bundle, ConfigIssue } from "../../config/types.ts";
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import { systemClock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import { silentLogger } from "../../shared/logger.ts";
import { describe } from "../../shared/errors.ts";
import type { ReloadPlan } from "./reload-plan.ts";
import { RestartScope, type InstanceTarget } from "./restart-scope.ts";
import type { RestartAnswer } from "../../protocol/restart-answer.ts";

export type { InstanceTarget } from "./restart-scope.ts";
export type { ReloadPlan } from "./reload-plan.ts";
export type { RestartAnswer } from "../../protocol/restart-answer.ts";

export interface LoadedBundle {
  valid: boolean;
  bundle?: Bundle;
  errors: ConfigIssue[];
}

export interface RestartRequest {
  reason: string;
  /** Restart only this agent's instances. Default: every agent. */
  agent?: string;
  /** With `agent`: restart only this one instance of it. Without `agent` the request is refused. */
  instanceKey?: string;
  /** Clear the restarted instances' conversations. */
  fresh?: boolean;
  /**
   * Resolves when the asking turn has committed (self-restart from a tool): the reload waits for it,
   * so the turn's reply still reaches its requester. Capped by `maxWaitMs`.
   */
  afterTurn?: Promise<unknown>;
  /** Cluster mode: relayed from another node's reload announcement, so not announced again. Default false. */
  relayed?: boolean;
}

export interface RestartCoordinatorOptions {
  /** Loads and validates the bundle on disk (bound to the bundle path and env by the caller). */
  loadBundle: () => Promise<LoadedBundle>;
  /** Applies a plan: the orchestrator's reload. */
  reload: (plan: ReloadPlan) => Promise<void>;
  /** Default: the system clock. */
  clock?: Clock;
  /** Requests within this window after the first one become one reload. Default: 300 ms. */
  coalesceMs?: number;
  /** Longest wait for asking turns to commit before reloading anyway. Default: 60000 ms. */
  maxWaitMs?: number;
  /** Default: silent. */
  logger?: Logger;
}

export interface RestartCoordinator {
  request(request: RestartRequest): Promise<RestartAnswer>;
  /** Resolves when no batch is waiting or reloading (tests, shutdown). */
  settled(): Promise<void>;
  /** Drops any batch not yet started (on shutdown). */
  close(): void;
}

interface Batch {
  restart: RestartScope;
  /** What to clear, kept apart from `restart`: a plain request coalesced in never widens it. */
  fresh: RestartScope;
  reasons: string[];
  waits: Promise<unknown>[];
  /** Some request was made on this node (not relayed from another node). */
  announce: boolean;
}

const issueOf = (issue: ConfigIssue) => ({ code: issue.code, path: issue.path, message: issue.message });

export function createRestartCoordinator(options: RestartCoordinatorOptions): RestartCoordinator {
  const clock = options.clock ?? systemClock;
  const coalesceMs = options.coalesceMs ?? 300;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const logger = options.logger ?? silentLogger();
  let validating: Promise<LoadedBundle> | undefined;
  let batch: Batch | undefined;
  let windowTimer: TimerHandle | undefined;
  let running: Promise<void> = Promise.resolve();
  let inFlight = 0;
  let closed = false;

  /** Requests arriving while a validation runs share its result. */
  const validate = (): Promise<LoadedBundle> => {
    validating ??= options.loadBundle().finally(() => {
      validating = undefined;
    });
    return validating;
  };

  const waitAtMost = (waits: Promise<unknown>[]): Promise<void> =>
    new Promise((resolve) => {
      if (waits.length === 0) return resolve();
      const timer = clock.setTimeout(resolve, maxWaitMs);
      void Promise.allSettled(waits).then(() => {
        clock.clearTimeout(timer);
        resolve();
      });
    });

  const fire = (current: Batch): Promise<void> => {
    inFlight++;
    running = running
      .then(async () => {
        await waitAtMost(current.waits);
        if (closed) return;
        const loaded = await options.loadBundle();
        if (!loaded.valid || loaded.bundle === undefined) {
          logger.warn(
            { issues: loaded.errors.map(issueOf), reasons: current.reasons },
            "restart skipped: the bundle became invalid; the running swarm is unchanged",
          );
          return;
        }
        await options.reload(planOf({ batch: current, bundle: loaded.bundle, logger }));
      })
      .catch((error: unknown) => {
        logger.error({ error: describe(error) }, "restart failed");
      })
      .finally(() => {
        inFlight--;
      });
    return running;
  };

  const enqueue = (request: RestartRequest): void => {
    if (batch === undefined) {
      batch = { restart: new RestartScope(), fresh: new RestartScope(), reasons: [], waits: [], announce: false };
      windowTimer = clock.setTimeout(() => {
        const current = batch;
        batch = undefined;
        windowTimer = undefined;
        if (current) void fire(current);
      }, coalesceMs);
    }
    const target = {
      ...(request.agent !== undefined ? { agent: request.agent } : {}),
      ...(request.instanceKey !== undefined ? { instanceKey: request.instanceKey } : {}),
    };
    batch.restart.add(target);
    if (request.fresh === true) batch.fresh.add(target);
    batch.reasons.push(request.reason);
    if (request.afterTurn) batch.waits.push(request.afterTurn);
    if (request.relayed !== true) batch.announce = true;
  };

  return {
    async request(request) {
      if (closed)
        return {
          accepted: false,
          issues: [{ code: "E_RESTART_CLOSED", path: "", message: "the orchestrator is shutting down" }],
        };
      if (request.instanceKey !== undefined && request.agent === undefined) {
        return {
          accepted: false,
          issues: [
            {
              code: "E_RESTART_INSTANCE_WITHOUT_AGENT",
              path: "",
              message: `instanceKey ${JSON.stringify(request.instanceKey)} needs the agent it belongs to`,
            },
          ],
        };
      }
      const loaded = await validate();
      if (!loaded.valid || loaded.bundle === undefined) {
        logger.warn(
          { reason: request.reason, issues: loaded.errors.map(issueOf) },
          "restart refused: the bundle on disk is invalid",
        );
        return { accepted: false, issues: loaded.errors.map(issueOf) };
      }
      enqueue(request);
      return { accepted: true, issues: [] };
    },
    async settled() {
      while (batch !== undefined || inFlight > 0 || validating !== undefined) {
        if (batch !== undefined) await new Promise((resolve) => setTimeout(resolve, 1));
        else await Promise.all([running, validating]);
      }
    },
    close() {
      closed = true;
      if (windowTimer) clock.clearTimeout(windowTimer);
      batch = undefined;
      windowTimer = undefined;
    },
  };
}

/** The reload plan of a batch: what restarts, and (never more than some fresh request named) what is cleared. */
function planOf(options: { batch: Batch; bundle: Bundle; logger: Logger }): ReloadPlan {
  const { batch } = options;
  const restart = batch.restart.lists();
  const fresh = batch.fresh.lists();
  const freshAgents = fresh.agents ?? [];
  const plan: ReloadPlan = {
    bundle: options.bundle,
    ...(restart.agents ? { agents: restart.agents } : {}),
    ...(restart.instances.length > 0 ? { instances: restart.instances } : {}),
    fresh: batch.fresh.all,
    ...(freshAgents.length > 0 ? { freshAgents } : {}),
    ...(fresh.instances.length > 0 ? { freshInstances: fresh.instances } : {}),
    reasons: batch.reasons,
    ...(batch.announce ? { announce: true } : {}),
  };
  const address = (target: InstanceTarget) => `${target.agent}/${target.instanceKey}`;
  options.logger.info(
    {
      agents: restart.agents ?? "all",
      instances: restart.instances.map(address),
      fresh: batch.fresh.all ? "all" : [...freshAgents, ...fresh.instances.map(address)],
      reasons: batch.reasons,
    },
    "restarting",
  );
  return plan;
}
