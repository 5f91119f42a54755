/**
 * The figures bench/peer-compare.ts prints for each system of a run (req/s over the lanes, sequential p50/p99, CPU
 * per request, the loopback server's CPU per request it served), goondan's ratios against the best peer of the
 * same run, and min / median / max of each over `--runs`.
 */
import { percentile } from "../support/percentile.ts";
import type { PeerFigures } from "./peer-harness.ts";

export interface Row {
  rps: number;
  p50: number;
  p99: number;
  /** CPU ms per request over both measured phases (sequential and lanes); NaN without /proc. */
  cpu: number;
  /** The loopback server's CPU ms per request it served for this system (warm-up included). */
  serverCpu: number;
  /** Live processes at most (goondan only). */
  processes?: number;
  /** Of `cpu`, what the orchestrator process spent (goondan only). */
  orchestratorCpu?: number;
}

export function toRow(
  figures: PeerFigures & { orchestratorCpuMs?: number },
  serverCpuMs: number,
  sent: number,
  processes?: number,
): Row {
  const cpuMs = (figures.sequentialCpuMs ?? Number.NaN) + (figures.lanesCpuMs ?? Number.NaN);
  const measured = figures.sequentialMs.length + figures.lanes.requests;
  return {
    rps: figures.lanes.requests / figures.lanes.seconds,
    p50: percentile(figures.sequentialMs, 50),
    p99: percentile(figures.sequentialMs, 99),
    cpu: cpuMs / measured,
    serverCpu: serverCpuMs / sent,
    ...(processes === undefined ? {} : { processes }),
    ...(figures.orchestratorCpuMs === undefined ? {} : { orchestratorCpu: figures.orchestratorCpuMs / measured }),
  };
}

export interface Ratios {
  cpu: number;
  rps: number;
  p50: number;
}

/** goondan against the best peer of the run on each figure: least CPU, most req/s, lowest p50. */
export function ratios(goondan: Row, peers: Row[]): Ratios {
  return {
    cpu: goondan.cpu / Math.min(...peers.map((peer) => peer.cpu)),
    rps: goondan.rps / Math.max(...peers.map((peer) => peer.rps)),
    p50: goondan.p50 / Math.min(...peers.map((peer) => peer.p50)),
  };
}

const fixed = (value: number, digits: number, width: number): string => value.toFixed(digits).padStart(width);

export function formatRow(label: string, row: Row): string {
  const processes = row.processes === undefined ? "" : `   peak processes ${row.processes}`;
  const orchestrator = row.orchestratorCpu === undefined ? "" : ` (orchestrator ${row.orchestratorCpu.toFixed(2)})`;
  return `  ${label.padEnd(36)} ${fixed(row.rps, 1, 7)} req/s   p50 ${fixed(row.p50, 2, 7)} ms   p99 ${fixed(row.p99, 2, 7)} ms   CPU ${fixed(row.cpu, 2, 7)} ms/request${orchestrator}${processes}`;
}

export function formatRatios(label: string, value: Ratios): string {
  return `  ${label} against the best peer: CPU/request ${value.cpu.toFixed(2)}x (goal <= 1.0x), req/s ${value.rps.toFixed(2)}x (goal >= 1.5x), p50 ${value.p50.toFixed(2)}x (goal <= 1.0x)`;
}

/** "min / median / max" of some values. */
export function spread(values: number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median =
    sorted.length % 2 === 1
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return [sorted[0]!, median, sorted[sorted.length - 1]!].map((value) => value.toFixed(digits)).join(" / ");
}

/** The summary lines over several runs: each system's figures and goondan's ratios as min / median / max. */
export function summaryLines(rows: Map<string, Row[]>, ratioRuns: Map<string, Ratios[]>): string[] {
  const lines: string[] = [];
  for (const [label, runs] of rows) {
    const figure = (pick: (row: Row) => number, digits: number): string => spread(runs.map(pick), digits);
    lines.push(
      `  ${label.padEnd(36)} req/s ${figure((row) => row.rps, 1)}   p50 ${figure((row) => row.p50, 2)} ms   p99 ${figure((row) => row.p99, 2)} ms   CPU ${figure((row) => row.cpu, 2)} ms/request   loopback server CPU ${figure((row) => row.serverCpu, 2)} ms/request`,
    );
  }
  for (const [label, runs] of ratioRuns) {
    lines.push(
      `  ${label} against the best peer: CPU/request ${spread(
        runs.map((run) => run.cpu),
        2,
      )}x (goal <= 1.0x), req/s ${spread(
        runs.map((run) => run.rps),
        2,
      )}x (goal >= 1.5x), p50 ${spread(
        runs.map((run) => run.p50),
        2,
      )}x (goal <= 1.0x)`,
    );
  }
  return lines;
}
