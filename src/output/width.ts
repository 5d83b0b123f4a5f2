/**
 * How wide text is on a terminal, and text cut to a width: the one measure of terminal tables,
 * records and the progress bar's label. It is string-width's, and a table is sized, cut and padded
 * with it (table.ts), so a column is as wide as it is drawn: CJK and emoji take two columns,
 * combining marks (a name written decomposed, NFD) none. Counting code points instead gave a column
 * of wide characters half the room it needed, and every such value was cut, `--wide` too
 * (findings-attack19 F1).
 */
import stringWidth from 'string-width';

const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

/** Columns `text` takes on a terminal. */
export function textWidth(text: string): number {
  // Printable ASCII, most cells: one column each (string-width's answer, four times faster).
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text);
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * `text` cut to `width` columns: whole graphemes (an emoji, a flag, a letter and its accents are
 * never split), then `ellipsis`; text that fits is returned as it is.
 */
export function cutToWidth(text: string, width: number, ellipsis: string): string {
  if (textWidth(text) <= width) return text;
  // Printable ASCII, most cells: a grapheme is a character of one column (the loop's answer,
  // without segmenting every cell of every chunk a table prints).
  if (PRINTABLE_ASCII.test(text))
    return `${text.slice(0, Math.max(0, width - textWidth(ellipsis)))}${ellipsis}`;
  let kept = '';
  let used = textWidth(ellipsis);
  for (const { segment } of graphemes.segment(text)) {
    const w = textWidth(segment);
    if (used + w > width) break;
    kept += segment;
    used += w;
  }
  return `${kept}${ellipsis}`;
}

/**
 * Whether `text` takes one column a character (a grapheme), so that its width in columns is its
 * length in characters: not CJK, emoji or decomposed accents.
 */
export function oneColumnEach(text: string): boolean {
  if (PRINTABLE_ASCII.test(text)) return true;
  let count = 0;
  for (const _ of graphemes.segment(text)) count++;
  return count === textWidth(text);
}

/** `text` padded with spaces to `width` columns (padEnd counts UTF-16 units, not columns). */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - textWidth(text)));
}
