/**
 * A body nested deeper than MAX_JSON_DEPTH, sent to a real `goondan run`: 150,000 objects under 1 MiB in `metadata`
 * are refused with `400 E_API_BODY_TOO_DEEP` before anything is parsed, stored or delivered, and the same instance
 * answers the next event as if nothing had happened.
 */
import { describe, expect, it } from "bun:test";
import { MAX_JSON_DEPTH } from "../../src/shared/json-depth.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { serveRealSwarm } from "./run-fixture.ts";

const defer = useCleanups();

const post = (base: string, body: string) =>
  fetch(`${base}/v1/events`, { method: "POST", headers: { "content-type": "application/json" }, body });

describe("a deeply nested body, real processes", () => {
  it("is refused with a coded 400 and nothing stored, and the instance still serves", async () => {
    const run = await serveRealSwarm({ defer, llm: { respond: () => ({ text: "still here" }) } });
    const depth = 150_000;
    const metadata = '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    const deep = `{"input":"hello","metadata":${metadata}}`;
    expect(deep.length).toBeLessThan(1024 * 1024);
    const refused = await post(run.base, deep);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("E_API_BODY_TOO_DEEP");

    // The body, its metadata and the list: exactly MAX_JSON_DEPTH levels in all.
    const justDeepEnough = "[".repeat(MAX_JSON_DEPTH - 2) + "]".repeat(MAX_JSON_DEPTH - 2);
    const answered = await post(
      run.base,
      JSON.stringify({ input: "hello", wait: true, metadata: { list: JSON.parse(justDeepEnough) } }),
    );
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { response: string }).response).toBe("still here");

    const { events } = (await (await fetch(`${run.base}/v1/runtime-events`)).json()) as { events: { type: string }[] };
    expect(events.filter((event) => event.type === "turn.started")).toHaveLength(1);
  }, 60_000);
});
