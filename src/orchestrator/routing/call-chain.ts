/**
 * Delegation checks on the call chain that travels with every request: the target must be in the Swarm,
 * must not already be on the chain (A→B→A and longer cycles), and the chain must stay within
 * `maxDelegationDepth` hops. Pure; the router turns a refusal into a structured error at once.
 */
export type DelegationCheck =
  | { ok: true; chain: string[] }
  | {
      ok: false;
      code: "E_AGENT_NOT_FOUND" | "E_CIRCULAR_CALL_DETECTED" | "E_DELEGATION_DEPTH_EXCEEDED";
      message: string;
    };

export interface DelegationOptions {
  /** The chain the requester's current turn carries (original caller … sender). */
  callChain: readonly string[];
  requester: string;
  target: string;
  members: ReadonlySet<string> | ReadonlyMap<string, unknown>;
  maxDepth: number;
  /** Fire-and-forget sends cannot deadlock, so only requests check for cycles. Default true. */
  checkCycle?: boolean;
}

/** The chain to put on the new event (ending with the requester), or why the call is refused. */
export function checkDelegation(options: DelegationOptions): DelegationCheck {
  const { requester, target } = options;
  if (!options.members.has(target)) {
    const names = [...options.members.keys()].join(", ");
    return {
      ok: false,
      code: "E_AGENT_NOT_FOUND",
      message: `agent ${JSON.stringify(target)} is not in the swarm; members: ${names}`,
    };
  }
  const chain = [...options.callChain];
  if (chain[chain.length - 1] !== requester) chain.push(requester);
  if ((options.checkCycle ?? true) && chain.includes(target)) {
    return {
      ok: false,
      code: "E_CIRCULAR_CALL_DETECTED",
      message: `calling ${target} would close a cycle: ${[...chain, target].join(" -> ")}`,
    };
  }
  if (chain.length > options.maxDepth) {
    return {
      ok: false,
      code: "E_DELEGATION_DEPTH_EXCEEDED",
      message: `call chain ${[...chain, target].join(" -> ")} exceeds maxDelegationDepth ${options.maxDepth}`,
    };
  }
  return { ok: true, chain };
}
