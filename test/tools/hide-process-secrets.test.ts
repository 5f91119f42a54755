import { describe, expect, it } from "bun:test";
import { resolve } from "node:path";
import * as toolLayer from "../../src/tools/index.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const MODULE = resolve(import.meta.dir, "../../src/tools/hide-process-secrets.ts");

describe("hideProcessSecrets", () => {
  it.if(process.platform === "linux")(
    "makes a real process non-dumpable, so same-user commands cannot read its /proc environ",
    async () => {
      const script = `const m = await import(${JSON.stringify(MODULE)}); const before = await m.processDumpable(); const ok = await m.hideProcessSecrets(); const after = await m.processDumpable(); console.log(JSON.stringify({ before, ok, after }));`;
      const child = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
      expect(child.exitCode).toBe(0);
      expect(JSON.parse(child.stdout.toString())).toEqual({ before: 1, ok: true, after: 0 });
    },
  );

  it("is part of the tool layer's API, so process entries can call it at startup", () => {
    expect(typeof toolLayer.hideProcessSecrets).toBe("function");
    expect(typeof toolLayer.processDumpable).toBe("function");
  });

  it("does nothing and reports false on a system other than Linux", async () => {
    expect(await toolLayer.hideProcessSecrets({ platform: "darwin" })).toBe(false);
    expect(await toolLayer.hideProcessSecrets({ platform: "win32" })).toBe(false);
  });
});
