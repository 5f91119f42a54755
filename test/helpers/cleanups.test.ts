import { describe, expect, it } from "bun:test";
import { killChild, useCleanups } from "./cleanups.ts";

describe("useCleanups", () => {
  const defer = useCleanups();
  const log: string[] = [];

  it("runs nothing while the test is still running", () => {
    defer(() => void log.push("deferred first"));
    defer(async () => {
      await Bun.sleep(1);
      log.push("deferred second");
    });
    expect(log).toEqual([]);
  });

  it("ran the previous test's cleanups after it, last deferred first, once", () => {
    expect(log).toEqual(["deferred second", "deferred first"]);
  });

  it("killChild kills the child and waits for its exit", async () => {
    const child = Bun.spawn([process.execPath, "-e", "setTimeout(() => {}, 30_000)"]);
    await killChild(child)();
    expect(child.signalCode).toBe("SIGKILL");
  });
});
