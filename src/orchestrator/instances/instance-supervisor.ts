/**
 * The Supervisor of one instance's child: its spec (the agent entry, `ready`, the ready deadline), the process pool
 * as its start gate, and the hooks that tie the child's life to the instance: it is wanted while the instance has
 * work, a spawned child is limited and handed its durable state (`hydrate`), and its messages and exit are the
 * instance's (on-child-message.ts).
 */
import type { Logger } from "../../shared/logger.ts";
import type { ChildProcess } from "../../supervision/child-process.ts";
import { Supervisor } from "../../supervision/supervisor.ts";
import { hydrateChild } from "./child-state.ts";
import type { InstanceRef } from "../../store/store.ts";
import type { PoolMember } from "../../supervision/process-pool.ts";
import type { InstanceHandle, InstanceOptions } from "./instance-options.ts";
import { onChildExit, onChildMessage, type InstanceParts } from "./on-child-message.ts";

export function superviseInstance(
  instance: InstanceHandle & PoolMember & { readonly ref: InstanceRef },
  options: InstanceOptions,
  own: { logger: Logger; parts: () => InstanceParts; onReady: (child: ChildProcess) => void; spawned: () => void },
): Supervisor {
  const { pool } = options;
  const supervisor: Supervisor = new Supervisor({
    spec: {
      address: instance.address,
      spawnRequest: options.spawnRequest,
      readyMessage: "ready",
      readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
    },
    spawner: options.spawner,
    clock: options.clock,
    logger: own.logger,
    policy: () => options.policy().restart,
    gate: {
      request: () => pool.request(instance),
      started: () => pool.started(instance),
      released: () => pool.released(instance),
    },
    hooks: {
      wanted: () => instance.hasWork(),
      spawned: (child) => {
        options.hooks.spawned?.(instance, child.pid);
        hydrateChild({
          store: options.store,
          ref: instance.ref,
          child,
          logger: own.logger,
        });
        own.spawned();
      },
      ready: (child) => own.onReady(child),
      message: (child, message) => onChildMessage(own.parts(), child, message),
      exited: (ended) => onChildExit(own.parts(), ended),
    },
  });
  return supervisor;
}
