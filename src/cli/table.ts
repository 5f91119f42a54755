/**
 * The one table formatter of the CLI (ps, instance list, approvals): a header row and rows of cells, each column
 * as wide as its widest cell, columns two spaces apart, no trailing spaces, one line per row.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return `${all.map(line).join("\n")}\n`;
}
