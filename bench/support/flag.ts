/** The one command-line reader of the bench scripts: the value after `--name`, or `fallback` when it is not given. */
export function flag(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}
