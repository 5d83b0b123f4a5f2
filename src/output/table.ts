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
  table.push(...rows.map((cells) => cells.map((cell, i) => cutCell(cell, widths[i] ?? 0, ellipsis))));
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** Characters a terminal draws two columns wide: emoji, and East Asian wide and fullwidth forms. */
const WIDE =
  /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{20000}-\u{3FFFD}])/u;

/** Columns one grapheme takes, as cli-table3 counts them (string-width: emoji and wide forms 2). */
function graphemeWidth(grapheme: string): number {
  return WIDE.test(grapheme) ? 2 : 1;
}

/**
 * `cell` cut to `width` columns, whole graphemes then `ellipsis`, before cli-table3 sees it:
 * cli-table3 cuts a UTF-16 unit at a time, which splits an emoji into half a surrogate pair (U+FFFD
 * on the screen) and a family or a flag into pieces. A cell with escapes (a coloured status) is
 * never cut (layout.ts).
 */
function cutCell(cell: string, width: number, ellipsis: string): string {
  if (cell.length <= width || cell.includes('\u001b')) return cell;
  const parts = [...graphemes.segment(cell)].map((part) => part.segment);
  const widthOf = parts.map(graphemeWidth);
  if (widthOf.reduce((sum, w) => sum + w, 0) <= width) return cell;
  let kept = '';
  let used = ellipsis.length;
  for (const [at, part] of parts.entries()) {
    if (used + widthOf[at]! > width) break;
    kept += part;
    used += widthOf[at]!;
  }
  return `${kept}${ellipsis}`;
}
