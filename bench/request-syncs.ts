/**
 * How many fsyncs a request of the peer workload (bench/peer-compare.ts: an entry agent delegating to a worker that
 * calls one echo tool) costs on its way, and the sequential p50: `goondan run` (state on disk) runs under
 * `strace -f -e trace=fsync,fdatasync` (every thread: the log is synced off the event loop), and the bench counts
 * the calls made while N sequential requests run, a new conversation every 3. A count, so a loaded machine does not
 * move it; the p50 is taken under strace (slower than without). `--no-strace` gives the p50 alone. `--repo DIR`
 * measures another checkout.
 *
 *   bun bench/request-syncs.ts [--requests N] [--repo DIR] [--no-strace]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

const repo = resolve(flag("repo", join(import.meta.dir, "..")));
const requests = Number(flag("requests", "90"));
const traced = !process.argv.includes("--no-strace");
const { writeBundle, goondanConversation } = (await import(
  join(repo, "bench/peer/goondan-side.ts")
)) as typeof import("./peer/goondan-side.ts");
const { startGoondanRun } = (await import(
  join(repo, "test/helpers/goondan-process.ts")
)) as typeof import("../test/helpers/goondan-process.ts");

const server = Bun.spawn([process.execPath, join(repo, "bench/peer/loopback-server.ts")], {
  stdout: "pipe",
  stderr: "inherit",
});
const first = new TextDecoder().decode((await server.stdout.getReader().read()).value);
const { url } = JSON.parse(first.split("\n")[0] ?? "{}") as { url: string };
const dir = mkdtempSync(join(tmpdir(), "goondan-syncs-bundle-"));
const stateRoot = mkdtempSync(join(tmpdir(), "goondan-syncs-state-"));
const trace = join(stateRoot, "..", `goondan-syncs-${process.pid}.strace`);
writeBundle(dir, url);
const daemon = await startGoondanRun({
  bin: join(repo, "bin/goondan"),
  args: [dir, "--port", "0", "--state-root", stateRoot],
  env: { LOOPBACK_API_KEY: "loopback" },
  stderr: "ignore",
  prefix: traced ? ["strace", "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", trace] : [],
});
const syncs = (): number =>
  traced
    ? readFileSync(trace, "utf8")
        .split("\n")
        .filter((line) => /\b(fsync|fdatasync)\(/.test(line)).length
    : 0;
try {
  const start = goondanConversation(daemon.base);
  for (let index = 0; index < 15; index++) await start(`warm-${Math.floor(index / 3)}`)(`warm-up ${index}`);
  const before = syncs();
  const times: number[] = [];
  for (let index = 0; index < requests; index++) {
    const began = performance.now();
    await start(`c-${Math.floor(index / 3)}`)(`request ${index}`);
    times.push(performance.now() - began);
  }
  const perRequest = traced ? `${((syncs() - before) / requests).toFixed(2)} fsyncs per request; ` : "";
  console.log(
    `${repo}: ${requests} sequential requests, a new conversation every 3: ${perRequest}p50 ${percentile(times, 50).toFixed(2)} ms${traced ? " (under strace)" : ""}`,
  );
} finally {
  daemon.proc.kill("SIGTERM");
  await daemon.proc.exited;
  server.kill();
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateRoot, { recursive: true, force: true });
  rmSync(trace, { force: true });
}
