import { afterAll, describe, expect, it } from "bun:test";
import fc from "fast-check";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeSafeName, isHashedSafeName, MAX_SAFE_NAME_LENGTH, safeName } from "../../src/shared/safe-name.ts";

// Keys of every kind of UTF-16 content: whole code points (astral too), single code units (lone surrogates),
// and the characters the mapping treats specially.
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const special = fc.constantFrom(
  ".",
  "..",
  "^",
  "+",
  "=",
  "%",
  "/",
  "\0",
  "A",
  "z",
  "가",
  "¬",
  "0",
  "ac00",
  "+ac00",
  "^a",
);
const keys = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: anyCodeUnit, maxLength: 80 }),
  fc.string({ unit: special, maxLength: 12 }),
  fc.string({ unit: fc.oneof(anyCodeUnit, special), minLength: 30, maxLength: 400 }),
);
const RUNS = { numRuns: 2000, interruptAfterTimeLimit: 20_000 };

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("safeName", () => {
  it("gives 가 and ¬00 (which the old mapping both named %ac00) different names", () => {
    expect(safeName("가")).toBe("+ac00");
    expect(safeName("¬00")).toBe("+00ac00");
  });

  it("reads every plain name back to its key, so no two keys share a plain name", () => {
    fc.assert(
      fc.property(keys, (key) => {
        const name = safeName(key);
        if (!isHashedSafeName(name)) expect(decodeSafeName(name)).toBe(key);
      }),
      RUNS,
    );
  });

  it("never gives two different keys one name", () => {
    fc.assert(
      fc.property(keys, keys, (a, b) => {
        fc.pre(a !== b);
        expect(safeName(a)).not.toBe(safeName(b));
      }),
      RUNS,
    );
    // Keys that differ only after the readable prefix of a bounded name.
    const long = "키".repeat(300);
    expect(safeName(`${long}a`)).not.toBe(safeName(`${long}b`));
  });

  it("makes names that are safe on any file system: lowercase ASCII, no / or NUL, never . or .. or empty, bounded", () => {
    fc.assert(
      fc.property(keys, (key) => {
        const name = safeName(key);
        expect(name).toMatch(/^[a-z0-9_.\-^+=]+$/);
        expect(name).not.toBe(".");
        expect(name).not.toBe("..");
        expect(name.length).toBeLessThanOrEqual(MAX_SAFE_NAME_LENGTH);
      }),
      RUNS,
    );
  });

  it("keeps plain keys readable and spells the special ones", () => {
    expect(safeName("worker-1_a.b")).toBe("worker-1_a.b");
    expect(safeName("C024BE91L")).toBe("^c024^b^e91^l");
    expect(safeName("a/b")).toBe("a+002fb");
    expect(safeName(".")).toBe("+002e");
    expect(safeName("..")).toBe("+002e+002e");
    expect(safeName("")).toBe("^");
    expect(decodeSafeName("^")).toBe("");
    expect(decodeSafeName(".")).toBeUndefined();
  });

  it("bounds a 5,000-character key to a readable prefix and a hash, and the file system takes every name", () => {
    const root = mkdtempSync(join(tmpdir(), "goondan-safe-name-"));
    dirs.push(root);
    const key = "x".repeat(5000);
    const name = safeName(key);
    expect(isHashedSafeName(name)).toBe(true);
    expect(name.startsWith("xxxx")).toBe(true);
    expect(decodeSafeName(name)).toBeUndefined();
    const created = new Set<string>();
    fc.assert(
      fc.property(keys, (candidate) => {
        mkdirSync(join(root, safeName(candidate)), { recursive: true });
        created.add(candidate);
      }),
      { numRuns: 300 },
    );
    mkdirSync(join(root, name));
    created.add(key);
    expect(readdirSync(root).length).toBe(created.size);
  });
});
