/**
 * How many fsyncs a request of the peer workload (bench/peer-compare.ts: an entry agent delegating to a worker that
 * calls one echo tool) costs on its way, and how many bytes it writes to the store's write-ahead log (each commit
 * writes whole 4 KiB pages, and an fsync's time grows with the bytes it flushes), and the sequential p50:
 * `goondan run` (state on disk) runs under `strace -f -y -e trace=fsync,fdatasync,pwrite64` (every thread: the
 * log is synced off the event loop), and the bench counts the calls made, and sums the bytes written to
 * `goondan.db-wal`, while N sequential requests run, a new conversation every 3. Counts, so a loaded machine does not
 * move them; the p50 is taken under strace (slower than without). `--no-strace` gives the p50 alone. `--repo DIR`
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
  prefix: traced ? ["strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync,pwrite64", "-o", trace] : [],
});
/** fsync calls so far, and bytes written to the write-ahead log so far. */
const traced_ = (): { syncs: number; walBytes: number } => {
  if (!traced) return { syncs: 0, walBytes: 0 };
  const lines = readFileSync(trace, "utf8").split("\n");
  const syncs = lines.filter((line) => /\b(fsync|fdatasync)\(/.test(line)).length;
  let walBytes = 0;
  for (const line of lines) {
    if (!/\bpwrite64\(\d+<[^>]*goondan\.db-wal>/.test(line)) continue;
    const written = /= (\d+)$/.exec(line);
    if (written) walBytes += Number(written[1]);
  }
  return { syncs, walBytes };
};
try {
  const start = goondanConversation(daemon.base);
  // The text names the conversation: the loopback server picks the worker instance by it (`worker-<conversation>`).
  const send = (conversation: string, text: string) => start(conversation)(`${conversation} ${text}`);
  for (let index = 0; index < 15; index++) await send(`warm-${Math.floor(index / 3)}`, `warm-up ${index}`);
  const before = traced_();
  const times: number[] = [];
  for (let index = 0; index < requests; index++) {
    const began = performance.now();
    await send(`c-${Math.floor(index / 3)}`, `request ${index}`);
    times.push(performance.now() - began);
  }
  const after = traced_();
  const perRequest = traced
    ? `${((after.syncs - before.syncs) / requests).toFixed(2)} fsyncs and ` +
      `${((after.walBytes - before.walBytes) / requests / 1024).toFixed(1)} KiB of write-ahead log per request; `
    : "";
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
