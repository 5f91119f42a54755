/**
 * How many fsyncs a request of the peer workload (bench/peer-compare.ts: an entry agent delegating to a worker that
 * calls one echo tool) costs on its way, and how many bytes it writes to the store's write-ahead log (each commit
 * writes whole 4 KiB pages, and an fsync's time grows with the bytes it flushes), and the sequential p50:
 * `goondan run` (state on disk) runs under `strace -f -y -e trace=fsync,fdatasync,pwrite64` (every thread: the
 * log is synced off the event loop), and the bench counts the calls made, and sums the bytes written to
 * `goondan.db-wal`, while N sequential requests run, a new conversation every 3. Counts, so a loaded machine does not
 * move them; the p50 is taken under strace (slower than without). It also counts the log's frames (one page each)
 * and commits per request, and names the table or index each frame's page belongs to (SQLite's `dbstat`, read once
 * goondan has stopped). `--no-strace` gives the p50 alone. `--repo DIR` measures another checkout.
 *
 *   bun bench/request-syncs.ts [--requests N] [--repo DIR] [--no-strace]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";
import { childPids } from "./support/process-tree.ts";

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
  prefix: traced
    ? ["strace", "-f", "-qq", "-y", "-x", "-s", "8", "-e", "trace=fsync,fdatasync,pwrite64", "-o", trace]
    : [],
});
/** The frames' pages named by the table or index that holds each page now (SQLite's dbstat), most first. */
function framesByTable(pages: number[]): string {
  const db = new Database(join(stateRoot, "goondan.db"), { readonly: true });
  try {
    const owner = new Map(
      (db.query("SELECT pageno, name FROM dbstat").all() as { pageno: number; name: string }[]).map((row) => [
        row.pageno,
        row.name,
      ]),
    );
    const counts = new Map<string, number>();
    for (const page of pages) {
      const name = owner.get(page) ?? "(free)";
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([name, count]) => `${name} ${(count / requests).toFixed(1)}`)
      .join(", ");
  } finally {
    db.close();
  }
}
/** The first bytes of a 24-byte frame header written to the log: the page's number, and nonzero at a commit's end. */
const FRAME_HEADER = /\bpwrite64\(\d+<[^>]*goondan\.db-wal>, "((?:\\x[0-9a-f]{2}){8})"(?:\.\.\.)?, 24,/;
/** fsync calls so far, bytes written to the write-ahead log so far, and its frames (by page) and commits. */
const traced_ = (): { syncs: number; walBytes: number; commits: number; pages: number[] } => {
  if (!traced) return { syncs: 0, walBytes: 0, commits: 0, pages: [] };
  const lines = readFileSync(trace, "utf8").split("\n");
  const syncs = lines.filter((line) => /\b(fsync|fdatasync)\(/.test(line)).length;
  let walBytes = 0;
  let commits = 0;
  const pages: number[] = [];
  for (const line of lines) {
    if (!/\bpwrite64\(\d+<[^>]*goondan\.db-wal>/.test(line)) continue;
    const written = /= (\d+)$/.exec(line);
    if (written) walBytes += Number(written[1]);
    const header = FRAME_HEADER.exec(line)?.[1];
    if (header === undefined) continue;
    const bytes = Buffer.from(header.replaceAll("\\x", ""), "hex");
    pages.push(bytes.readUInt32BE(0));
    if (bytes.readUInt32BE(4) !== 0) commits += 1;
  }
  return { syncs, walBytes, commits, pages };
};
/** The page of each frame the measured requests wrote to the log, in order. */
let framesOf: number[] = [];
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
    ? `${((after.syncs - before.syncs) / requests).toFixed(2)} fsyncs, ` +
      `${((after.commits - before.commits) / requests).toFixed(2)} commits, ` +
      `${((after.pages.length - before.pages.length) / requests).toFixed(1)} pages and ` +
      `${((after.walBytes - before.walBytes) / requests / 1024).toFixed(1)} KiB of write-ahead log per request; `
    : "";
  framesOf = after.pages.slice(before.pages.length);
  console.log(
    `${repo}: ${requests} sequential requests, a new conversation every 3: ${perRequest}p50 ${percentile(times, 50).toFixed(2)} ms${traced ? " (under strace)" : ""}`,
  );
} finally {
  // Under strace the daemon is strace's child: SIGTERM goes to goondan itself (strace would only detach).
  process.kill(traced ? (childPids(daemon.proc.pid)[0] ?? daemon.proc.pid) : daemon.proc.pid, "SIGTERM");
  await daemon.proc.exited;
  server.kill();
  if (framesOf.length > 0) console.log(`  pages per request by table or index: ${framesByTable(framesOf)}`);
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateRoot, { recursive: true, force: true });
  rmSync(trace, { force: true });
}
