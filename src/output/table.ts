import { cutToWidth, padToWidth } from './width.js';

/**
 * A borderless table in the style of gh: two spaces between columns, values cut with "…" (`ellipsis`)
 * when the terminal is narrow, each line's trailing spaces dropped. `head` is omitted for
 * continuation chunks of a streamed list.
 *
 * Drawn here rather than by cli-table3 (until session 23): every width is chosen by layout.ts and
 * every cell cut before it is drawn, so a table is only cells padded to their widths; cli-table3
 * measured each cell again with a regular expression built per call and filled a cell grid, most of
 * a long table's time (20,000 rows in chunks of 500 at 80 columns: 5.5 s, against 0.08 s padded
 * here; README's design notes).
 */
export function renderTable(
  head: string[] | undefined,
  rows: string[][],
  widths: number[],
  ellipsis = '…',
): string {
  const lines = (head === undefined || head.length === 0 ? rows : [head, ...rows]).map((cells) =>
    widths
      .map((width, i) => padToWidth(cutCell(cells[i] ?? '', width, ellipsis), width))
      .join('  ')
      .trimEnd(),
  );
  return lines.length === 0 ? '\n' : `${lines.join('\n')}\n`;
}

/**
 * `cell` cut to `width` columns, whole graphemes then `ellipsis` (an emoji is never split into half
 * a surrogate pair, a family or a flag into pieces). A cell with escapes (a coloured status) is
 * never cut (layout.ts gives it its width).
 */
function cutCell(cell: string, width: number, ellipsis: string): string {
  return cell.includes('\u001b') ? cell : cutToWidth(cell, width, ellipsis);
}
