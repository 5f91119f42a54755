/**
 * The one plain-text table of the CLI: a header row and rows of cells, each column as wide as its widest cell,
 * two spaces between columns, trailing spaces trimmed. ps, instance list, approvals, package list, schedules and
 * eval print with it.
 */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}
