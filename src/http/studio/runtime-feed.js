// The swarm's runtime events as they happen, for the graph and the trace: GET /v1/watch (SSE) when the daemon has
// it; otherwise each known instance's GET /v1/instances/:agent/:key/events is polled from its last cursor.

import { api, sse } from "./api.js";

export function startRuntimeFeed(onEvents, instances) {
  const listeners = { stop: false };
  (async () => {
    try {
      const answer = await sse("/v1/watch", {}, (frame) => {
        if (frame.event === "runtime" && typeof frame.data === "object") onEvents([frame.data]);
      });
      if (answer === undefined || listeners.stop) return; // the stream ended
    } catch {
      // fall back to polling
    }
    const cursors = new Map();
    while (!listeners.stop) {
      for (const row of instances()) {
        const key = `${row.agent}/${row.instanceKey}`;
        const first = !cursors.has(key);
        const query = first ? "limit=200" : `after=${cursors.get(key)}`;
        try {
          const answer = await api(
            `/v1/instances/${encodeURIComponent(row.agent)}/${encodeURIComponent(row.instanceKey)}/events?${query}`,
          );
          cursors.set(key, answer.cursor);
          if (answer.events.length > 0) onEvents(answer.events);
        } catch {
          // no events yet
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 700));
    }
  })();
  return () => (listeners.stop = true);
}
