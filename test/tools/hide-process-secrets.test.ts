import { describe, expect, it } from "bun:test";
import { resolve } from "node:path";

const MODULE = resolve(import.meta.dir, "../../src/tools/hide-process-secrets.ts");

describe("hideProcessSecrets", () => {
  it.if(process.platform === "linux")("makes a real process non-dumpable, so same-user commands cannot read its /proc environ", async () => {
    const script = `const m = await import(${JSON.stringify(MODULE)}); const before = await m.processDumpable(); const ok = await m.hideProcessSecrets(); const after = await m.processDumpable(); console.log(JSON.stringify({ before, ok, after }));`;
    const child = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(child.exitCode).toBe(0);
    expect(JSON.parse(child.stdout.toString())).toEqual({ before: 1, ok: true, after: 0 });
  });
});
