/**
 * A child that is still starting is handed its first event at once (it holds it until its instance is built), so
 * a new conversation waits for no `ready` round trip. A child that ends before it was ready never began that
 * event's turn: the event is not blamed for it (no crash counted, no redelivery flag), and the next child gets it.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { removeRoots, setup, tick } from "./routing/routing-harness.ts";

afterEach(removeRoots);

describe("an event handed to a child before it is ready", () => {
  it("goes to the starting child at once, and its ready delivers nothing twice", async () => {
    const s = setup();
    const submitted = s.orchestrator.submit({ input: "hello" });
    await submitted.accepted;
    const child = s.spawner.latest("a");
    expect(child.events().map((delivery) => delivery.event.input)).toEqual(["hello"]);
    expect(child.events()[0]).toMatchObject({ attempt: 1 });
    child.ready();
    await tick();
    expect(child.events()).toHaveLength(1);
    child.reply({ response: "hi" });
    expect(await submitted.outcome).toMatchObject({ status: "ok", response: "hi" });
  });

  it("is not blamed when the child ends before it was ready: the next child gets it as a first attempt", async () => {
    const s = setup({ policy: { restart: { maxConsecutiveCrashes: 5, initialBackoffMs: 0 } } });
    const submitted = s.orchestrator.submit({ input: "hello" });
    await submitted.accepted;
    const first = s.spawner.latest("a");
    expect(first.events()).toHaveLength(1);
    first.crash();
    await tick();
    s.clock.advance(1_000);
    const second = s.spawner.latest("a");
    expect(second).not.toBe(first);
    expect(second.events()).toHaveLength(1);
    expect(second.events()[0]).toMatchObject({ attempt: 1 });
    expect(second.events()[0]).toEqual(expect.not.objectContaining({ redelivery: true }));
    expect(second.events()[0]).toEqual(expect.not.objectContaining({ crashedBefore: expect.anything() }));
    second.ready();
    second.reply({ response: "hi" });
    expect(await submitted.outcome).toMatchObject({ status: "ok", response: "hi" });
  });

  it("is redelivered as a crash once the child was ready and began it", async () => {
    const s = setup({ policy: { restart: { maxConsecutiveCrashes: 5, initialBackoffMs: 0 } } });
    const submitted = s.orchestrator.submit({ input: "hello" });
    await submitted.accepted;
    const first = s.spawner.latest("a");
    first.ready();
    first.crash();
    await tick();
    s.clock.advance(1_000);
    const second = s.spawner.latest("a");
    expect(second.events()[0]).toMatchObject({ attempt: 2, redelivery: true, crashedBefore: "it exited with code 1" });
    second.ready();
    second.reply({ response: "hi" });
    expect(await submitted.outcome).toMatchObject({ status: "ok" });
  });
});
