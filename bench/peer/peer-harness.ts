/**
 * The one driver of a peer's side of bench/peer-compare.ts, in the peer's own Bun process: warm-up, a sequential
 * lane (its request times) and then LANES lanes at once (their wall time), the CPU this process used over each
 * phase, and one JSON line on stdout for peer-compare to read. A peer gives only how it starts a conversation and
 * sends one request in it, written as its own docs show.
 * `--conv long`: each lane is one conversation; `--conv short`: each lane starts a new conversation every
 * CONVERSATION_REQUESTS requests (as goondan's side does with a new instanceKey).
 * Flags: --url URL --sequential N --lanes L --requests M --conv short|long
 */
import { flag } from "../support/flag.ts";

/** Requests per conversation with `--conv short`. */
export const CONVERSATION_REQUESTS = 3;

/** A conversation: sends one user text, resolves with the entry agent's final answer. */
export type Conversation = (text: string) => Promise<string>;

export interface PeerFigures {
  sequentialMs: number[];
  lanes: { requests: number; seconds: number };
  sequentialCpuMs?: number;
  lanesCpuMs?: number;
}

let conversations = 0;

/**
 * One lane's requests one after another, each `<conversation> request <i>`; a new conversation (named
 * `<lane>-c<k>`, k counting every conversation this process started, so none is met twice) every
 * `perConversation` requests, or one named after the lane for the whole lane.
 */
export async function driveLane(options: {
  name: string;
  requests: number;
  perConversation: number;
  start: (conversation: string) => Conversation;
  times?: number[];
}): Promise<void> {
  let send: Conversation | undefined;
  let conversation = options.name;
  for (let i = 0; i < options.requests; i += 1) {
    if (send === undefined || i % options.perConversation === 0) {
      conversation =
        options.perConversation === Number.POSITIVE_INFINITY ? options.name : `${options.name}-c${conversations++}`;
      send = options.start(conversation);
    }
    const started = performance.now();
    const answer = await send(`${conversation} request ${i}`);
    if (!answer.startsWith("done")) throw new Error(`unexpected answer ${answer.slice(0, 200)}`);
    options.times?.push(performance.now() - started);
  }
}

/** Requests per conversation for `--conv short|long`. */
export function perConversation(conv: string): number {
  if (conv === "short") return CONVERSATION_REQUESTS;
  if (conv === "long") return Number.POSITIVE_INFINITY;
  throw new Error(`--conv expects short or long, got ${conv}`);
}

/** Runs the phases with `start` and prints the figures as one JSON line. */
export async function runPeer(start: (conversation: string) => Conversation): Promise<void> {
  const per = perConversation(flag("conv", "long"));
  const cpuMs = (since: NodeJS.CpuUsage): number => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  await driveLane({ name: "lane-warm", requests: 20, perConversation: per, start });
  const sequentialMs: number[] = [];
  let cpu = process.cpuUsage();
  const sequential = Number(flag("sequential", "100"));
  await driveLane({ name: "lane-seq", requests: sequential, perConversation: per, start, times: sequentialMs });
  const sequentialCpuMs = cpuMs(cpu);
  const lanes = Number(flag("lanes", "10"));
  const perLane = Math.ceil(Number(flag("requests", "400")) / lanes);
  cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, (_, index) =>
      driveLane({ name: `lane-${index}`, requests: perLane, perConversation: per, start }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const figures: PeerFigures = {
    sequentialMs,
    lanes: { requests: perLane * lanes, seconds },
    sequentialCpuMs,
    lanesCpuMs: cpuMs(cpu),
  };
  console.log(JSON.stringify(figures));
}
