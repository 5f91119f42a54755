/**
 * bench/support/cpu-profile.ts: a sample counts once for each named file anywhere on its stack, frames the
 * caller does not name are skipped, and only samples inside the time window count.
 */
import { describe, expect, it } from "bun:test";
import { type CpuProfile, samplesPerFile } from "../../bench/support/cpu-profile.ts";

// root → a.ts → b.ts → a.ts (recursion) ; root → lib (node_modules)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { url: "" }, children: [2, 5] },
    { id: 2, callFrame: { url: "file:///r/src/a.ts" }, children: [3] },
    { id: 3, callFrame: { url: "file:///r/src/b.ts" }, children: [4] },
    { id: 4, callFrame: { url: "file:///r/src/a.ts" } },
    { id: 5, callFrame: { url: "file:///r/node_modules/lib/index.js" } },
  ],
  startTime: 1_000,
  samples: [4, 3, 5, 2],
  timeDeltas: [10, 10, 10, 10],
};
const fileOf = (url: string) => (url.startsWith("file:///r/src/") ? url.slice("file:///r/src/".length) : undefined);

describe("samplesPerFile", () => {
  it("counts a file once per sample that has it anywhere on its stack, and skips frames not named", () => {
    expect(Object.fromEntries(samplesPerFile({ profile, fileOf }))).toEqual({ "a.ts": 3, "b.ts": 2 });
  });

  it("counts only the samples taken inside the window", () => {
    // Samples at 1010, 1020, 1030, 1040: the window keeps the second and third.
    expect(Object.fromEntries(samplesPerFile({ profile, fileOf, from: 1_015, to: 1_035 }))).toEqual({
      "a.ts": 1,
      "b.ts": 1,
    });
  });
});
