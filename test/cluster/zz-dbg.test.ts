import { it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { ask, clusterSwarm } from "./cluster-swarm.ts";
const defer = useCleanups();
it("x", async () => {
  const c = await clusterSwarm(defer, { label: "dbg" });
  const n1 = await c.startNode("n1");
  for (let i = 0; i < 8; i++) {
    const t = performance.now();
    const r = await ask(n1.base, { input: `job-${i}`, instanceKey: "c-1", timeoutMs: 20000 });
    console.log(r.status, Math.round(performance.now() - t));
  }
  for (const l of n1.lines) if ((l.level as number) >= 40 || String(l.msg).includes("claimed") || l.msg === "DBG") console.log(JSON.stringify(l).slice(60, 300));
}, 60000);
