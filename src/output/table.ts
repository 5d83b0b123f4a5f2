import Table from 'cli-table3';
import { cutToWidth } from './width.js';

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
  table.push(...rows.map((cells) => cells.map((cell, i) => cutCell(cell, widths[i] ?? 0, ellipsis))));
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}

/**
 * `cell` cut to `width` columns, whole graphemes then `ellipsis`, before cli-table3 sees it:
 * cli-table3 cuts a UTF-16 unit at a time, which splits an emoji into half a surrogate pair (U+FFFD
 * on the screen) and a family or a flag into pieces. A cell with escapes (a coloured status) is
 * never cut (layout.ts).
 */
function cutCell(cell: string, width: number, ellipsis: string): string {
  return cell.includes('\u001b') ? cell : cutToWidth(cell, width, ellipsis);
}
