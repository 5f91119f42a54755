// htm bound to Preact's h: the studio's components are written as tagged templates, so the sources run without a
// JSX transform and Bun.build only bundles them.
import htm from "htm";
import { h } from "preact";

export const html = htm.bind(h);

/** "3.2 s", "140 ms". */
export const formatMs = (ms) =>
  ms === undefined || ms === null ? "" : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;

/** "12:03:04" for today, else the date too. */
export function formatTime(at) {
  if (at === undefined || at === null) return "";
  const date = new Date(at);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString() : date.toLocaleString();
}

/** A value as indented JSON (a truncated one says so). */
export function formatJson(value) {
  if (value && typeof value === "object" && value.truncated === true && typeof value.preview === "string")
    return `${value.preview}\n[truncated: ${value.bytes} bytes in all]`;
  return JSON.stringify(value, null, 2);
}

/** The hash of a view and its parts: `#/threads/coordinator/duo`. */
export const link = (view, ...parts) => `#/${[view, ...parts].map(encodeURIComponent).join("/")}`;

/** Polls `task` every `ms` while mounted (in a useEffect); returns the stop. */
export function every(ms, task) {
  let stopped = false;
  let timer;
  const run = async () => {
    await Promise.resolve(task()).catch(() => {});
    if (!stopped) timer = setTimeout(run, ms);
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
