/**
 * The deadlines of pending approvals (`expiresAt`) as timers on the orchestrator's clock, each known with its
 * instance: armed once per approval however often it is offered, cleared once decided, and all those of one instance
 * cleared when this orchestrator stops running it (cluster mode: another node took the instance over and runs its
 * deadlines). A deadline further than a timer can hold is armed again when this one fires.
 */
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import type { Approval } from "../../protocol/approval.ts";

/** Node's timers hold at most 2^31-1 ms; a longer deadline is re-armed when this one fires. */
const MAX_TIMER_MS = 2_147_483_647;

export class ApprovalDeadlines {
  private readonly timers = new Map<string, { handle: TimerHandle; agent: string; instanceKey: string }>();
  private closed = false;

  /** `due`: the deadline of `approval` has come. */
  constructor(
    private readonly clock: Clock,
    private readonly due: (approval: Approval) => void,
  ) {}

  /** Arms the approval's deadline, unless it has none, is armed already, or the desk closed. */
  arm(approval: Approval): void {
    if (approval.expiresAt === undefined || this.timers.has(approval.id) || this.closed) return;
    const delay = Math.max(0, approval.expiresAt - this.clock.now());
    const handle = this.clock.setTimeout(
      () => {
        this.timers.delete(approval.id);
        if (delay > MAX_TIMER_MS) return this.arm(approval);
        this.due(approval);
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    this.timers.set(approval.id, { handle, agent: approval.agent, instanceKey: approval.instanceKey });
  }

  armed(id: string): boolean {
    return this.timers.has(id);
  }

  /** The approval was decided: its deadline no longer matters. */
  clear(id: string): void {
    const timer = this.timers.get(id);
    if (timer === undefined) return;
    this.clock.clearTimeout(timer.handle);
    this.timers.delete(id);
  }

  /** Clears every deadline of the instance (it no longer runs here); returns how many. */
  disarm(agent: string, instanceKey: string): number {
    let cleared = 0;
    for (const [id, timer] of this.timers)
      if (timer.agent === agent && timer.instanceKey === instanceKey) this.clear(id), cleared++;
    return cleared;
  }

  close(): void {
    this.closed = true;
    for (const id of [...this.timers.keys()]) this.clear(id);
  }
}
