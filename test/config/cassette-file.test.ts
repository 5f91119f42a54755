/**
 * A replay cassette is confined like every file a bundle names: relative, inside the bundle (symlinks
 * followed), a regular file, at most 16 MiB; validation, the model factory and the replay model's read all
 * refuse the rest with a code, and nothing ever blocks on a FIFO or reads a device without end.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText } from "ai";
import { createLanguageModel } from "../../src/agent/model/model-factory.ts";
import { ReplayModel } from "../../src/agent/model/replay-model.ts";
import { MAX_CASSETTE_BYTES, readCassetteRecords } from "../../src/config/cassette-file.ts";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { findResource } from "../../src/config/resolve.ts";
import { GOONDAN_BIN } from "../helpers/goondan-process.ts";
import { baseBundle, header, removeBundles, writeBundle } from "./temp-bundle.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const outside: string[] = [];
afterAll(() => {
  removeBundles();
  for (const dir of outside) rmSync(dir, { recursive: true, force: true });
});

const replayModel = (cassette: string) =>
  `${header("Model", "m")}spec: { provider: replay, model: demo, options: { cassette: ${JSON.stringify(cassette)} } }\n`;
const LINE = `${JSON.stringify({ v: 1, request: {}, reply: { content: [{ type: "text", text: "hi" }] } })}\n`;

async function cassetteErrors(cassette: string, prepare?: (dir: string) => void): Promise<[string, string, string][]> {
  const dir = writeBundle(baseBundle({ model: replayModel(cassette) }));
  prepare?.(dir);
  const result = await loadBundle(dir, { checkModules: false });
  return result.errors.map((issue) => [issue.code, issue.path, issue.message]);
}

describe("validating options.cassette", () => {
  it("refuses /dev/zero, an absolute path, as outside the bundle", async () => {
    const [error] = await cassetteErrors("/dev/zero");
    expect(error?.slice(0, 2)).toEqual(["E_CONFIG_ENTRY_OUTSIDE_BUNDLE", "goondan.yaml#0.spec.options.cassette"]);
    expect(error?.[2]).toContain("an absolute path");
  }, 2000);

  it("refuses a path that climbs out of the bundle, and a symlink to a file outside it", async () => {
    expect((await cassetteErrors("../elsewhere.jsonl")).map((error) => error[0])).toEqual([
      "E_CONFIG_ENTRY_OUTSIDE_BUNDLE",
    ]);
    const away = mkdtempSync(join(tmpdir(), "goondan-cassette-away-"));
    outside.push(away);
    writeFileSync(join(away, "c.jsonl"), LINE);
    expect(
      (
        await cassetteErrors("./linked.jsonl", (dir) => symlinkSync(join(away, "c.jsonl"), join(dir, "linked.jsonl")))
      ).map((error) => error[0]),
    ).toEqual(["E_CONFIG_ENTRY_OUTSIDE_BUNDLE"]);
  });

  it("refuses a symlink to a device, a FIFO and a directory inside the bundle as not regular files, without reading them", async () => {
    const device = await cassetteErrors("./zero.jsonl", (dir) => symlinkSync("/dev/zero", join(dir, "zero.jsonl")));
    expect(device.map((error) => error.slice(0, 2))).toEqual([
      ["E_CONFIG_CASSETTE_NOT_REGULAR", "goondan.yaml#0.spec.options.cassette"],
    ]);
    expect(device[0]?.[2]).toContain("a character device");
    const fifo = await cassetteErrors("./pipe.jsonl", (dir) =>
      expect(spawnSync("mkfifo", [join(dir, "pipe.jsonl")]).status).toBe(0),
    );
    expect(fifo[0]?.[2]).toContain("FIFO");
    const directory = await cassetteErrors("./cassettes", (dir) => mkdirSync(join(dir, "cassettes")));
    expect(directory.map((error) => error[0])).toEqual(["E_CONFIG_CASSETTE_NOT_REGULAR"]);
  }, 5000);

  it("refuses a cassette over 16 MiB", async () => {
    const errors = await cassetteErrors("./big.jsonl", (dir) => {
      writeFileSync(join(dir, "big.jsonl"), "");
      truncateSync(join(dir, "big.jsonl"), MAX_CASSETTE_BYTES + 1);
    });
    expect(errors.map((error) => error[0])).toEqual(["E_CONFIG_CASSETTE_TOO_LARGE"]);
  });

  it("accepts a cassette inside the bundle, and only warns about one not recorded yet", async () => {
    expect(
      await cassetteErrors("./cassettes/demo.jsonl", (dir) => {
        mkdirSync(join(dir, "cassettes"));
        writeFileSync(join(dir, "cassettes", "demo.jsonl"), LINE);
      }),
    ).toEqual([]);
    const result = await loadBundle(writeBundle(baseBundle({ model: replayModel("./cassettes/new.jsonl") })), {
      checkModules: false,
    });
    expect(result.warnings.map((issue) => issue.code)).toEqual(["W_CONFIG_CASSETTE_MISSING"]);
  });
});

describe("reading a cassette at run time", () => {
  it("the model factory refuses a cassette outside the bundle even when nothing validated it", async () => {
    const dir = writeBundle(baseBundle({ model: replayModel("./ok.jsonl"), files: { "ok.jsonl": LINE } }));
    const bundle = (await loadBundle(dir, { checkModules: false })).bundle!;
    const resource = findResource(bundle, "Model", "m")!;
    await expect(
      createLanguageModel({
        resource: { ...resource, spec: { ...resource.spec, options: { cassette: "/dev/zero" } } },
      }),
    ).rejects.toMatchObject({ code: "E_CONFIG_ENTRY_OUTSIDE_BUNDLE" });
    await expect(createLanguageModel({ resource })).resolves.toBeDefined();
  });

  it("the replay model refuses /dev/zero and a cassette that grew past the cap, with a bounded read", async () => {
    await expect(
      generateText({ model: new ReplayModel({ cassette: "/dev/zero" }), prompt: "hi", maxRetries: 0 }),
    ).rejects.toMatchObject({ code: "E_CONFIG_CASSETTE_NOT_REGULAR" });
    const dir = writeBundle({ "c.jsonl": LINE });
    expect(readCassetteRecords(join(dir, "c.jsonl"))).toHaveLength(1);
    truncateSync(join(dir, "c.jsonl"), MAX_CASSETTE_BYTES + 10);
    expect(() => readCassetteRecords(join(dir, "c.jsonl"))).toThrow(
      expect.objectContaining({ code: "E_CONFIG_CASSETTE_TOO_LARGE" }),
    );
  }, 2000);

  it("goondan run refuses the /dev/zero bundle at once with exit 3, before any agent starts", async () => {
    const dir = writeBundle(baseBundle({ model: replayModel("/dev/zero") }));
    const proc = Bun.spawn(
      [process.execPath, GOONDAN_BIN, "run", dir, "--input", "hi", "--state-root", join(dir, ".state")],
      { stdout: "pipe", stderr: "pipe", env: { ...process.env } },
    );
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(3);
    expect(stderr).toContain("E_CONFIG_ENTRY_OUTSIDE_BUNDLE");
    expect(stderr).toContain("spec.options.cassette");
  }, 20_000);
});
