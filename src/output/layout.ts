/**
 * How a terminal table fits its terminal, as pure functions over cell text (output.ts renders).
 * The rules, in order, stop as soon as the table fits:
 *
 * 1. optional columns are dropped, the lowest rank first (rank 1 before 2; rightmost first
 *    within a rank);
 * 2. id columns are shortened to a unique prefix with "…" (`dlq_31e3ec…`): a note on stderr says
 *    that `--wide` or a pipe shows them whole; columns dropped in step 1 that now fit come back,
 *    the most important first;
 * 3. text and time columns are cut with "…", the widest first, down to a few characters;
 *    `detail` columns (an error, a reason) are cut only after every other one.
 *
 * In steps 1 and 2 a text longer than 40 characters counts as 40: it will be cut anyway, and
 * dropping every optional column would not make it fit.
 *
 * Statuses and ids are never cut. `--wide` skips all of it: every column, full width.
 */

import { textWidth } from './width.js';

export type ColumnKind = 'text' | 'time' | 'id' | 'status' | 'detail';

export interface ColumnFit {
  kind: ColumnKind;
  /** 0: always shown; 1, 2, …: may be dropped to fit, rank 1 first. */
  dropRank: number;
}

export interface TableLayout {
  /** Indexes of the columns shown, in order. */
  shown: number[];
  /** Width of each shown column. */
  widths: number[];
  /** For id columns that were shortened: how many characters follow the id's type prefix. */
  idKeep: Map<number, number>;
}

/** The narrowest a cut text column gets ("Acme …"). */
const MIN_TEXT = 6;
/** How wide a text column counts when deciding which columns stay (a longer one is cut). */
const COMFORTABLE = 40;
/** Characters kept after an id's type prefix (`dlq_` + 6): git keeps 7 of 40; these ids are random. */
const MIN_ID_KEEP = 6;
const GAP = 2;

const ID_PREFIX = /^[a-z]{2,8}_/;

/** `dlq_31e3ec6adaece4ff47ee93b6` kept to `dlq_31e3ec…`; an id too short to gain anything is left whole. */
export function shortenId(id: string, keep: number, ellipsis = '…'): string {
  const prefix = ID_PREFIX.exec(id)?.[0] ?? '';
  const rest = id.slice(prefix.length);
  return rest.length <= keep + textWidth(ellipsis) ? id : `${prefix}${rest.slice(0, keep)}${ellipsis}`;
}

/** The fewest characters (at least `least`) that keep every distinct id of the column distinct. */
export function uniqueKeep(ids: string[], least = MIN_ID_KEEP): number {
  const distinct = [...new Set(ids.filter((id) => id !== '' && id !== '-'))];
  const longest = distinct.reduce((most, id) => Math.max(most, id.length), 0);
  for (let keep = least; keep < longest; keep++) {
    const seen = new Set(distinct.map((id) => shortenId(id, keep)));
    if (seen.size === distinct.length) return keep;
  }
  return longest;
}

function total(widths: number[]): number {
  return widths.reduce((sum, w) => sum + w, 0) + GAP * Math.max(0, widths.length - 1);
}

export function fitTable(
  head: string[],
  rows: string[][],
  columns: ColumnFit[],
  terminalWidth: number,
  wide: boolean,
  ellipsis = '…',
  options: { leastKeep?: number | undefined } = {},
): TableLayout {
  const natural = head.map((h, i) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i] ?? ''))));
  const all = columns.map((_, i) => i);
  const idKeep = new Map<number, number>();
  if (wide) return { shown: all, widths: natural, idKeep };
  // Deciding which columns stay, a long text counts as COMFORTABLE wide: it is cut anyway, and
  // dropping every optional column would not make a 300-character permission list fit.
  const cut = (i: number) => columns[i]!.kind !== 'id' && columns[i]!.kind !== 'status';
  const comfortable = (i: number) => (cut(i) ? Math.min(natural[i]!, COMFORTABLE) : natural[i]!);
  const fitsWith = (list: number[], width: (i: number) => number) => total(list.map(width)) <= terminalWidth;

  // 1. Optional columns, lowest rank first, rightmost first within a rank.
  const droppable = all
    .filter((i) => columns[i]!.dropRank > 0)
    .sort((a, b) => columns[a]!.dropRank - columns[b]!.dropRank || b - a);
  let shown = all;
  for (const i of droppable) {
    if (fitsWith(shown, comfortable)) break;
    shown = shown.filter((j) => j !== i);
  }

  // 2. Ids to unique prefixes (only when still too wide); then columns dropped in step 1 come
  // back, the most important first, wherever they fit (dropping a wide column may make room).
  const shorten = !fitsWith(shown, comfortable);
  const idWidth = new Map<number, number>();
  for (const i of all) {
    if (!shorten || columns[i]!.kind !== 'id') continue;
    const keep = uniqueKeep(
      rows.map((r) => r[i] ?? ''),
      options.leastKeep,
    );
    const width = Math.max(
      textWidth(head[i]!),
      ...rows.map((r) => textWidth(shortenId(r[i] ?? '', keep, ellipsis))),
    );
    if (width < natural[i]!) {
      idKeep.set(i, keep);
      idWidth.set(i, width);
    }
  }
  const planned = (i: number) => idWidth.get(i) ?? comfortable(i);
  for (const i of droppable.filter((j) => !shown.includes(j)).reverse()) {
    const candidate = [...shown, i].sort((a, b) => a - b);
    if (fitsWith(candidate, planned)) shown = candidate;
  }
  for (const i of idKeep.keys()) if (!shown.includes(i)) idKeep.delete(i);

  // 3. Text and time columns cut, widest first; detail columns only once the others are at their minimum.
  const widths = shown.map((i) => idWidth.get(i) ?? natural[i]!);
  cutToFit(shown, widths, columns, terminalWidth);
  return { shown, widths, idKeep };
}

/** Step 3 of fitTable: cuts text and time columns (then detail ones) of `widths` until they fit. */
function cutToFit(shown: number[], widths: number[], columns: ColumnFit[], terminalWidth: number): void {
  let excess = total(widths) - terminalWidth;
  for (const pass of [['text', 'time'], ['detail']]) {
    while (excess > 0) {
      let widest = -1;
      shown.forEach((i, at) => {
        if (!pass.includes(columns[i]!.kind) || widths[at]! <= MIN_TEXT) return;
        if (widest === -1 || widths[at]! > widths[widest]!) widest = at;
      });
      if (widest === -1) break;
      widths[widest]! -= 1;
      excess -= 1;
    }
  }
}

/**
 * The layout of a table's next chunk when its ids, shortened as before, would read like ids of
 * earlier chunks (already printed, so not to be changed): the id columns of `keeps` show that many
 * characters from now on, and the other columns are cut again to make room.
 */
export function widenIds(
  layout: TableLayout,
  keeps: Map<number, number>,
  widths: Map<number, number>,
  columns: ColumnFit[],
  terminalWidth: number,
): TableLayout {
  const idKeep = new Map([...layout.idKeep, ...keeps]);
  const next = layout.shown.map((i, at) => Math.max(layout.widths[at]!, widths.get(i) ?? 0));
  cutToFit(layout.shown, next, columns, terminalWidth);
  return { shown: layout.shown, widths: next, idKeep };
}
