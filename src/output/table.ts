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

/**
 * A borderless table in the style of gh: two spaces between columns, values cut with "…" (`ellipsis`)
 * when the terminal is narrow. `head` is omitted for continuation chunks of a streamed list.
 */
export function renderTable(
  head: string[] | undefined,
  rows: string[][],
  widths: number[],
  ellipsis = '…',
): string {
  const table = new Table({
    head: head ?? [],
    chars: BORDERLESS,
    colWidths: widths,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    wordWrap: false,
    truncate: ellipsis,
  });
  table.push(...rows);
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}
