/**
 * The cases of a bundle, in the order they are written (Eval documents by file, then cases), each with the Swarm
 * and the Agent it runs against, narrowed by `--filter`: a substring of `<eval>/<case>`, or a pattern where `*`
 * stands for any text.
 */
import { selectSwarm } from "../config/resolve.ts";
import type { Bundle, EvalCase, EvalResource } from "../config/types.ts";

export interface SelectedCase {
  id: string;
  evalName: string;
  swarm: string;
  agent: string;
  evalCase: EvalCase;
}

export function evalCases(bundle: Bundle, filter?: string): SelectedCase[] {
  const evals = bundle.resources.filter((resource): resource is EvalResource => resource.kind === "Eval");
  const wanted = filter === undefined || filter === "" ? () => true : matcher(filter);
  return evals.flatMap((evaluation) => {
    const swarm = selectSwarm(bundle, evaluation.spec.swarm);
    return evaluation.spec.cases
      .map((evalCase) => ({
        id: `${evaluation.metadata.name}/${evalCase.name}`,
        evalName: evaluation.metadata.name,
        swarm: swarm.metadata.name,
        agent: evalCase.agent?.name ?? evaluation.spec.agent?.name ?? swarm.spec.entryAgent.name,
        evalCase,
      }))
      .filter((selected) => wanted(selected.id));
  });
}

function matcher(filter: string): (id: string) => boolean {
  if (!filter.includes("*")) return (id) => id.includes(filter);
  const source = filter
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  const pattern = new RegExp(`^${source}$`);
  return (id) => pattern.test(id);
}
