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
 * Statuses and ids are never cut. `--wide` skips all of it: every column, full width.
 */

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
/** Characters kept after an id's type prefix (`dlq_` + 6): git keeps 7 of 40; these ids are random. */
const MIN_ID_KEEP = 6;
const GAP = 2;

/** Length in characters (code points), which is what a terminal column holds for the text svc prints. */
export function textWidth(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const ID_PREFIX = /^[a-z]{2,8}_/;

/** `dlq_31e3ec6adaece4ff47ee93b6` kept to `dlq_31e3ec…`; an id too short to gain anything is left whole. */
export function shortenId(id: string, keep: number): string {
  const prefix = ID_PREFIX.exec(id)?.[0] ?? '';
  const rest = id.slice(prefix.length);
  return rest.length <= keep + 1 ? id : `${prefix}${rest.slice(0, keep)}…`;
}

/** The fewest characters (at least MIN_ID_KEEP) that keep every distinct id of the column distinct. */
export function uniqueKeep(ids: string[]): number {
  const distinct = [...new Set(ids.filter((id) => id !== '' && id !== '-'))];
  const longest = Math.max(0, ...distinct.map((id) => id.length));
  for (let keep = MIN_ID_KEEP; keep < longest; keep++) {
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
): TableLayout {
  const natural = head.map((h, i) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i] ?? ''))));
  let shown = columns.map((_, i) => i);
  const idKeep = new Map<number, number>();
  const widthsOf = (list: number[]) => list.map((i) => natural[i]!);
  if (wide) return { shown, widths: widthsOf(shown), idKeep };

  // 1. Optional columns, lowest rank first, rightmost first within a rank.
  const droppable = shown
    .filter((i) => columns[i]!.dropRank > 0)
    .sort((a, b) => columns[a]!.dropRank - columns[b]!.dropRank || b - a);
  for (const i of droppable) {
    if (total(widthsOf(shown)) <= terminalWidth) break;
    shown = shown.filter((j) => j !== i);
  }
  const fits = total(widthsOf(shown)) <= terminalWidth;

  // 2. Ids to unique prefixes (only when still too wide); then columns dropped in step 1 come
  // back, the most important first, wherever they fit (dropping a wide column may make room).
  const shortened = (i: number): number => {
    const keep = uniqueKeep(rows.map((r) => r[i] ?? ''));
    const width = Math.max(textWidth(head[i]!), ...rows.map((r) => textWidth(shortenId(r[i] ?? '', keep))));
    if (width < natural[i]!) idKeep.set(i, keep);
    return Math.min(width, natural[i]!);
  };
  const widthOf = (i: number) => (!fits && columns[i]!.kind === 'id' ? shortened(i) : natural[i]!);
  let widths = shown.map(widthOf);
  for (const i of droppable.filter((j) => !shown.includes(j)).reverse()) {
    const candidate = [...shown, i].sort((a, b) => a - b);
    const candidateWidths = candidate.map((j) => (j === i ? widthOf(j) : widths[shown.indexOf(j)]!));
    if (total(candidateWidths) <= terminalWidth) {
      shown = candidate;
      widths = candidateWidths;
    } else idKeep.delete(i);
  }

  // 3. Text and time columns, widest first; detail columns only once the others are at their minimum.
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
  return { shown, widths, idKeep };
}
