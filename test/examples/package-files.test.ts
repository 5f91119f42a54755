/**
 * The npm package ships everything the bundled example needs: every file goondan.yaml refers to
 * (prompts, the cassette) and the container's docker/ scripts are in package.json `files`.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const REPO = join(import.meta.dir, "..", "..");

describe("the packed npm package", () => {
  it("contains the bundled example's prompts and cassette, and the container scripts", () => {
    const packed = Bun.spawnSync(["npm", "pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: REPO,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(packed.exitCode).toBe(0);
    const [report] = JSON.parse(packed.stdout.toString()) as { files: { path: string }[] }[];
    const paths = new Set((report?.files ?? []).map((file) => file.path));
    const yaml = Bun.spawnSync(["cat", join(REPO, "goondan.yaml")]).stdout.toString();
    const referenced = [...yaml.matchAll(/(?:systemRef|cassette):\s*\.\/(\S+)/g)].map((match) => match[1] as string);
    expect(referenced.length).toBeGreaterThanOrEqual(3);
    for (const path of [
      ...referenced,
      "goondan.yaml",
      "bin/goondan",
      "docker/entrypoint.ts",
      "docker/healthcheck.ts",
      "src/agent/entry.ts",
    ]) {
      expect(paths.has(path), `${path} is not in the package`).toBe(true);
    }
  }, 60_000); // npm pack reads the whole tree: seconds on a loaded machine
});
