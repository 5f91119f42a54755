import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { containerArgs } from "../../docker/entrypoint.ts";
import { parseArgs } from "../../src/cli/args.ts";
import { command as runCommand } from "../../src/cli/commands/run.ts";
import { readClusterSettings } from "../../src/cluster/nats/settings.ts";
import { envOf, parseDockerfile, stages } from "./dockerfile.ts";

// docker/compose.cluster.yaml, the cluster a user starts with one command, checked without a container engine:
// the services it names, what each goondan node is told, and the command each node's entry point runs.

const repo = join(import.meta.dir, "..", "..");
const file = join(repo, "docker", "compose.cluster.yaml");

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: string[];
}
// Compose reads YAML merge keys (`<<: *node`).
const compose = parseYaml(readFileSync(file, "utf8"), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = Object.entries(compose.services);
const nats = services.filter(([, service]) => service.image?.startsWith("nats:"));
const nodes = services.filter(([, service]) => service.environment?.GOONDAN_CLUSTER_URL !== undefined);
const runtime = stages(parseDockerfile(readFileSync(join(repo, "Dockerfile"), "utf8"))).at(-1)!;
const imageEnv = envOf(runtime.instructions);

describe("docker/compose.cluster.yaml", () => {
  it("runs one NATS server with JetStream on a volume", () => {
    expect(nats).toHaveLength(1);
    const command = nats[0]![1].command!;
    expect(command).toContain("-js");
    const storeDir = command[command.indexOf("-sd") + 1];
    expect(nats[0]![1].volumes).toContain(`nats-data:${storeDir}`);
  });

  it("runs three goondan nodes with distinct node names, each on the NATS service", () => {
    expect(services).toHaveLength(4);
    expect(nodes.map(([name]) => name)).toEqual(["n1", "n2", "n3"]);
    const names = nodes.map(([, service]) => {
      const settings = readClusterSettings({ env: service.environment! });
      expect(settings?.servers).toEqual([`${nats[0]![0]}:4222`]);
      expect(service.depends_on).toEqual([nats[0]![0]]);
      return settings?.node;
    });
    expect(new Set(names)).toEqual(new Set(["n1", "n2", "n3"]));
  });

  it("gives each node a state volume of its own at the image's state root, and a port of its own", () => {
    const volumes = nodes.map(([, service]) => {
      const mounts = service.volumes!.filter((volume) => volume.endsWith(`:${imageEnv.GOONDAN_STATE_ROOT}`));
      expect(mounts).toHaveLength(1);
      return mounts[0]!.split(":")[0]!;
    });
    expect(new Set(volumes).size).toBe(3);
    for (const volume of volumes) expect(Object.keys(compose.volumes)).toContain(volume);
    const ports = nodes.map(([, service]) => service.ports![0]!.split(":"));
    expect(new Set(ports.map(([host]) => host)).size).toBe(3);
    for (const [, container] of ports) expect(container).toBe(imageEnv.GOONDAN_PORT);
  });

  it("builds every node from the repository's Dockerfile and requires an API token", () => {
    for (const [, service] of nodes) {
      const context = resolve(dirname(file), service.build!.context);
      expect(existsSync(join(context, service.build!.dockerfile ?? "Dockerfile"))).toBe(true);
      expect(context).toBe(repo);
      expect(service.environment!.GOONDAN_API_TOKEN).toMatch(/^\$\{GOONDAN_API_TOKEN:\?.+\}$/);
    }
  });

  it("has each node's entry point run `goondan run` on the image's bundle, on 0.0.0.0 with the token, flags the CLI accepts", () => {
    for (const [, service] of nodes) {
      const { argv, warnings } = containerArgs({
        argv: service.command!,
        env: { ...imageEnv, ...service.environment, GOONDAN_API_TOKEN: "a-token" },
      });
      expect(warnings).toEqual([]);
      expect(argv.slice(0, 2)).toEqual(["run", "/app/bundle"]);
      const parsed = parseArgs(argv.slice(1), runCommand.flags, { maxPositionals: runCommand.maxPositionals });
      expect(parsed.flags.host).toBe("0.0.0.0");
      expect(parsed.flags.port).toBe(Number(imageEnv.GOONDAN_PORT));
    }
    // The image puts the bundle at /app/bundle.
    const bundleCopy = runtime.instructions.find(
      (instruction) => instruction.keyword === "COPY" && instruction.args.endsWith("./bundle/goondan.yaml"),
    );
    expect(bundleCopy).toBeDefined();
  });
});
