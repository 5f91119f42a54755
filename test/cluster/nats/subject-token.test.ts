import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { decodeSubjectToken, MAX_SUBJECT_TOKEN_LENGTH, subjectToken } from "../../../src/cluster/nats/subject-token.ts";

// Names of every kind of UTF-16 content, and the characters NATS gives a meaning to.
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const special = fc.constantFrom(
  ".",
  "*",
  ">",
  " ",
  "\t",
  "_",
  "-",
  "=",
  "/",
  "\\",
  "$",
  "A",
  "z",
  "0",
  "가",
  "_002e",
  "_h",
  "",
);
const names = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.string({ unit: anyCodeUnit, maxLength: 60 }),
  fc.string({ unit: special, maxLength: 12 }),
  fc.string({ unit: fc.oneof(anyCodeUnit, special), minLength: 30, maxLength: 300 }),
);
const RUNS = { numRuns: 2000, interruptAfterTimeLimit: 20_000 };

describe("subjectToken", () => {
  it("keeps letters, digits and '-' readable and escapes everything else at a fixed width", () => {
    expect(subjectToken("coder-2")).toBe("coder-2");
    expect(subjectToken("a.b")).toBe("a_002eb");
    expect(subjectToken("a_b")).toBe("a_005fb");
    expect(subjectToken("*")).toBe("_002a");
    expect(subjectToken("가")).toBe("_ac00");
    expect(subjectToken("")).toBe("_");
  });

  it("reads every plain token back to its name, so no two names share a plain token", () => {
    fc.assert(
      fc.property(names, (name) => {
        const token = subjectToken(name);
        if (!token.includes("_h")) expect(decodeSubjectToken(token)).toBe(name);
      }),
      RUNS,
    );
  });

  it("never gives two different names one token", () => {
    fc.assert(
      fc.property(names, names, (a, b) => {
        fc.pre(a !== b);
        expect(subjectToken(a)).not.toBe(subjectToken(b));
      }),
      RUNS,
    );
    const long = "키".repeat(200);
    expect(subjectToken(`${long}a`)).not.toBe(subjectToken(`${long}b`));
  });

  it("makes tokens valid in a subject, a KV key and bucket name, a stream and a consumer name, and bounded", () => {
    fc.assert(
      fc.property(names, (name) => {
        const token = subjectToken(name);
        expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(token.length).toBeLessThanOrEqual(MAX_SUBJECT_TOKEN_LENGTH);
      }),
      RUNS,
    );
  });

  it("bounds a long name with a readable prefix and a hash that no plain token has", () => {
    const token = subjectToken("x".repeat(500));
    expect(token.length).toBe(MAX_SUBJECT_TOKEN_LENGTH);
    expect(token.startsWith("xxxx")).toBe(true);
    expect(token).toMatch(/_h[0-9a-f]{64}$/);
    expect(decodeSubjectToken(token)).toBeUndefined();
  });

  it("refuses to decode a string the mapping never makes", () => {
    expect(decodeSubjectToken("a.b")).toBeUndefined();
    expect(decodeSubjectToken("_zz00")).toBeUndefined();
    expect(decodeSubjectToken("_002")).toBeUndefined();
  });
});

describe("clusterNames", () => {
  it("gives two instances whose agent and key split differently different subjects, leases and consumers", () => {
    const names = clusterNames("s");
    // "a.b" + "c" and "a" + "b.c" would meet if dots were kept.
    expect(names.instanceSubject("a.b", "c")).not.toBe(names.instanceSubject("a", "b.c"));
    expect(names.instanceLeaseKey("a.b", "c")).not.toBe(names.instanceLeaseKey("a", "b.c"));
    expect(names.intakeConsumer("a=b", "c")).not.toBe(names.intakeConsumer("a", "b=c"));
  });

  it("names subjects by swarm, node or instance, one token each", () => {
    const names = clusterNames("my swarm");
    expect(names.nodeSubject("node-1", "reply")).toBe("gdn.my_0020swarm.node.node-1.reply");
    expect(names.instanceSubject("coder", "user:42")).toBe("gdn.my_0020swarm.instance.coder.user_003a42");
    expect(names.intakeSubject("coder", "user:42")).toBe("gdn.my_0020swarm.in.coder.user_003a42");
    expect(names.intakeSubjects).toBe("gdn.my_0020swarm.in.>");
    expect(names.leaseBucket).toMatch(/^[-\w]+$/);
    expect(names.intakeStream).toBe("GDN_my_0020swarm_IN");
  });
});
