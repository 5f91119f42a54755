import { afterEach, describe, expect, it } from "bun:test";
import { existsSync } from "node:fs";
import { main } from "../../src/cli/main.ts";
import { emptyInstanceState } from "../../src/protocol/instance-state.ts";
import { storedInstanceState } from "../helpers/stored-state.ts";
import { capture, cleanUpOperatorFixtures, deadPid, fakeApi, seedInstance, servers, stateRoot, writeOwner } from "./support/operator-fixture.ts";

afterEach(cleanUpOperatorFixtures);

describe("goondan instance", () => {
  it("lists the instances on disk with their swarm, committed messages and last change", async () => {
    const root = stateRoot();
    await seedInstance(root, { agent: "planner", instanceKey: "user/42", messages: 3 });
    const { io, out } = capture();
    expect(await main(["instance", "list", "--state-root", root, "--format", "json"], io)).toBe(0);
    const listed = JSON.parse(out.stdout).instances;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ swarm: "team", agent: "planner", instanceKey: "user/42", messages: 3 });
    const text = capture();
    expect(await main(["instance", "list", "--state-root", root], text.io)).toBe(0);
    expect(text.out.stdout).toContain("planner  user/42");
  });

  it("deletes an instance's files when no orchestrator runs it", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => Response.json({ instances: [] }));
    const { io, out } = capture();
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], io)).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
    expect(await storedInstanceState({ stateRoot: root, swarm: "team", agent: "planner", instanceKey: "team" })).toEqual(emptyInstanceState());
    expect(out.stdout).toContain("deleted team/planner/team");
  });

  it("deletes when no orchestrator answers and no live one owns the state root (a stale owner file is ignored)", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => new Response("")); // grab a port, then free it
    servers.splice(0).forEach((server) => server.stop(true));
    writeOwner(root, { pid: await deadPid(), port: Number(port), host: "127.0.0.1" });
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], capture().io)).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
  });

  it("refuses to delete while a live orchestrator owns the state root and its API does not answer", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => new Response(""));
    servers.splice(0).forEach((server) => server.stop(true));
    writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
    const { io, out } = capture();
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", "1"], io)).toBe(1);
    expect(existsSync(paths.root)).toBe(true);
    expect(out.stderr).toContain("E_STATE_ROOT_OWNED");
  });

  it("refuses to delete when the owning orchestrator's API answers 401 or 403", async () => {
    for (const status of [401, 403]) {
      const root = stateRoot();
      const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
      const port = fakeApi(() => Response.json({ error: { code: "UNAUTHORIZED", message: "no" } }, { status }));
      writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
      const { io, out } = capture({ GOONDAN_API_TOKEN: "wrong" });
      expect(await main(["instance", "delete", "planner", "team", "--state-root", root], io)).toBe(1);
      expect(existsSync(paths.root)).toBe(true);
      expect(out.stderr).toContain("E_STATE_ROOT_OWNED");
    }
  });

  it("deletes when the owning orchestrator, asked at the address it recorded with the token, says the instance is not live", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    let authorization = "";
    const port = fakeApi((request) => {
      authorization = request.headers.get("authorization") ?? "";
      return Response.json({ instances: [{ agent: "planner", instanceKey: "team", status: "terminated" }] });
    });
    writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", "1"], capture({ GOONDAN_API_TOKEN: "tok" }).io)).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
    expect(authorization).toBe("Bearer tok");
  });

  it("refuses to delete an instance the running orchestrator has live", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team" });
    let authorization = "";
    const port = fakeApi((request) => {
      authorization = request.headers.get("authorization") ?? "";
      return Response.json({ instances: [{ agent: "planner", instanceKey: "team", status: "idle", pid: 1234 }] });
    });
    const { io, out } = capture({ GOONDAN_API_TOKEN: "tok" });
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], io)).toBe(1);
    expect(existsSync(paths.root)).toBe(true);
    expect(out.stderr).toContain("is running");
    expect(out.stderr).toContain("goondan restart --agent planner --instance team --fresh");
    expect(authorization).toBe("Bearer tok");
  });

  it("exits 1 for an unknown instance and 2 for a missing argument or unknown action", async () => {
    const root = stateRoot();
    expect(await main(["instance", "delete", "ghost", "x", "--state-root", root, "--port", "1"], capture().io)).toBe(1);
    expect(await main(["instance", "delete", "ghost", "--state-root", root], capture().io)).toBe(2);
    expect(await main(["instance", "prune", "--state-root", root], capture().io)).toBe(2);
  });
});

