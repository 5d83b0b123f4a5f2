import Table from 'cli-table3';

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

const MIN_COLUMN = 6;

/** Column widths that fit the terminal: natural widths, the widest shrinkable one shrunk first. */
export function fitWidths(
  head: string[],
  rows: string[][],
  terminalWidth: number,
  fixed: boolean[] = [],
): number[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const gap = 2 * Math.max(0, widths.length - 1);
  let excess = widths.reduce((a, b) => a + b, 0) + gap - terminalWidth;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (!fixed[i] && (widest === -1 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest === -1 || widths[widest]! <= MIN_COLUMN) break;
    widths[widest]! -= 1;
    excess -= 1;
  }
  return widths;
}

/**
 * A borderless table in the style of gh: two spaces between columns, values cut with "…" when
 * the terminal is narrow. `head` is omitted for continuation chunks of a streamed list.
 */
export function renderTable(head: string[] | undefined, rows: string[][], widths: number[]): string {
  const table = new Table({
    head: head ?? [],
    chars: BORDERLESS,
    colWidths: widths,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    wordWrap: false,
    truncate: '…',
  });
  table.push(...rows);
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}
