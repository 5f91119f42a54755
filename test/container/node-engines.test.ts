import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };

const repo = join(import.meta.dir, "..", "..");

interface Demand {
  /** Where the package sits under node_modules. */
  path: string;
  range: string;
}

/** The installed production packages (package-lock.json: not dev, not optional) and their manifests' engines.node. */
function productionEngineDemands(): Demand[] {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; optional?: boolean }>;
  };
  const demands: Demand[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith("node_modules/") || entry.dev || entry.optional) continue;
    const manifest = join(repo, path, "package.json");
    if (!existsSync(manifest)) throw new Error(`${path} is in package-lock.json but not installed; run npm ci`);
    const range = (JSON.parse(readFileSync(manifest, "utf8")) as { engines?: { node?: unknown } }).engines?.node;
    if (typeof range === "string") demands.push({ path, range });
  }
  return demands;
}

/** The lowest Node a `>=X.Y.Z` range admits. */
function lowestAdmitted(range: string): string {
  const match = /^>=\s*(\d+\.\d+\.\d+)$/.exec(range.trim());
  if (!match) throw new Error(`engines.node must read ">=X.Y.Z" so its lowest version is plain; got ${range}`);
  return match[1] as string;
}

/** The demands that a Node we admit (each of `versions`) does not meet. */
function unmet(options: { demands: readonly Demand[]; versions: readonly string[] }): string[] {
  return options.demands.flatMap(({ path, range }) =>
    options.versions
      .filter((version) => !Bun.semver.satisfies(version, range))
      .map((version) => `${path} wants node ${range}; ours admits ${version}`),
  );
}

describe("package.json engines.node", () => {
  const ours = packageJson.engines.node;
  // The lowest Node we admit, and the Node that Bun (goondan's runtime) reports being compatible with.
  const versions = [lowestAdmitted(ours), process.versions.node];

  it("admits no Node that an installed production dependency refuses", () => {
    const demands = productionEngineDemands();
    expect(demands.length).toBeGreaterThan(50);
    expect(unmet({ demands, versions })).toEqual([]);
  });

  it("is as low as the dependencies allow: some dependency refuses the Node just below our lowest", () => {
    const [major, minor, patch] = lowestAdmitted(ours).split(".").map(Number) as [number, number, number];
    const below =
      patch > 0 ? `${major}.${minor}.${patch - 1}` : minor > 0 ? `${major}.${minor - 1}.999` : `${major - 1}.999.999`;
    expect(unmet({ demands: productionEngineDemands(), versions: [below] }).length).toBeGreaterThan(0);
  });

  it("would catch a dependency that wants a newer Node than ours admits", () => {
    const demands = [
      { path: "node_modules/fine", range: ">=18" },
      { path: "node_modules/greedy", range: ">=99" },
    ];
    expect(unmet({ demands, versions: ["22.15.0"] })).toEqual([
      "node_modules/greedy wants node >=99; ours admits 22.15.0",
    ]);
  });
});
