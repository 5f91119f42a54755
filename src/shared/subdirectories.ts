/** The names of a directory's subdirectories, sorted; none when it cannot be read (a missing state root is empty). */
import { readdirSync } from "node:fs";

export function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}
