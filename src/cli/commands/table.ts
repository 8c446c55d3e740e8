/** One column of a table: its header and how its cells line up. */
export interface Column {
  header: string;
  /** Numbers read best right-aligned; default left. */
  align?: 'left' | 'right';
}

const width = (text: string) => [...text].length;

/**
 * A plain-text table: a header row, then one row per item, columns separated by two spaces and padded to the
 * widest cell; no trailing spaces, so output diffs and greps cleanly. Cells are single-line (line breaks become
 * spaces).
 */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const clean = (cell: string | undefined) => (cell ?? '').replace(/\s*[\r\n]+\s*/g, ' ');
  const all = [columns.map((c) => c.header), ...rows.map((row) => columns.map((_, i) => clean(row[i])))];
  const widths = columns.map((_, i) => Math.max(...all.map((row) => width(row[i] ?? ''))));
  const lines = all.map((row) =>
    row
      .map((cell, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - width(cell));
        return columns[i]?.align === 'right' ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** A key/value block: keys padded to the longest, one pair a line. */
export function renderPairs(pairs: readonly (readonly [string, string])[]): string {
  const keyWidth = Math.max(0, ...pairs.map(([key]) => width(key)));
  return pairs.map(([key, value]) => `${key}${' '.repeat(keyWidth - width(key))}  ${value}`.trimEnd()).join('\n') + '\n';
}
