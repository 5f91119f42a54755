/** `goondan backup`: a consistent copy of the state database, taken while its store is open, that opens as a store. */
import { afterEach, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { storedInstanceState } from "../helpers/stored-state.ts";
import { capture, cleanUpOperatorFixtures, seedInstance, stateRoot } from "./support/operator-fixture.ts";

afterEach(cleanUpOperatorFixtures);

describe("goondan backup", () => {
  it("copies every conversation while the store is open, and never overwrites a file", async () => {
    const root = stateRoot();
    await seedInstance(root, { agent: "planner", instanceKey: "team", messages: 3 });
    const live = new SqliteStore(join(root, "goondan.db"));
    const copy = join(stateRoot(), "goondan.db");
    const { io, out } = capture({}, root);
    expect(await main(["backup", copy, "--state-root", root], io)).toBe(0);
    expect(out.stdout).toContain(`to ${copy}`);
    await live.close();
    expect(
      (await storedInstanceState({ stateRoot: join(copy, ".."), swarm: "team", agent: "planner", instanceKey: "team" }))
        .messages,
    ).toHaveLength(3);

    const again = capture({}, root);
    expect(await main(["backup", copy, "--state-root", root], again.io)).toBe(2);
    expect(again.out.stderr).toContain("exists already; a backup never overwrites a file");
  });

  it("says so when the state root has no database", async () => {
    const { io, out } = capture();
    expect(await main(["backup", "x.db", "--state-root", stateRoot()], io)).toBe(1);
    expect(out.stderr).toContain("no state database");
  });
});
