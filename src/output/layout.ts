/**
 * How a terminal table fits its terminal, as pure functions over cell text (output.ts renders).
 * The rules, in order, stop as soon as the table fits:
 *
 * 1. optional columns are dropped, the lowest rank first (rank 1 before 2; rightmost first
 *    within a rank);
 * 2. id columns are shortened to a unique prefix with "…" (`dlq_31e3ec…`): a note on stderr says
 *    that `--wide` or a pipe shows them whole; columns dropped in step 1 that now fit come back,
 *    the most important first;
 * 3. text and name columns are cut with "…", the widest first, text down to a few characters,
 *    a name (a role's, an audit action, an event type) only down to the width at which no two of
 *    its column's values read alike (`payments-reconciliation-approver-e…` and `…-a…`, never two
 *    `payments…`); `detail` columns (an error, a reason) are cut only after every other one.
 *
 * In steps 1 and 2 a text longer than 40 characters counts as 40 (a name as its least width, if
 * wider): it will be cut anyway, and dropping every optional column would not make it fit.
 *
 * Statuses, ids and times are never cut: a time cut mid-value (`2026-11-2…`, `87 seconds …`) says
 * neither the day nor the direction (attack22b F3). A table whose uncut columns do not fit is wider
 * than the terminal rather than untrue. `--wide` skips all of it: every column, full width.
 */

import { cutToWidth, textWidth } from './width.js';

export type ColumnKind = 'text' | 'name' | 'url' | 'time' | 'id' | 'status' | 'detail';

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
  /** For name columns: the least width at which no two of the values seen read alike; for URL columns, their hosts whole (hostsEnd). */
  least: Map<number, number>;
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

/**
 * The width a URL cell keeps at least: up to the end of its last URL's host, and the ellipsis. Cut
 * inside a host, `https://hooks.acme-treasury.com.relay.io` reads as `https://hooks.acme-treasury…`,
 * another host (review22e H1); a cell shows a URL's host whole, or the column is dropped or left wide.
 */
export function hostsEnd(cell: string): number {
  let end = 0;
  for (const match of cell.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^/\s?#,]*/gi))
    end = match.index + match[0].length;
  return end === 0 ? MIN_TEXT : textWidth(cell.slice(0, end)) + 1;
}

/** The fewest characters (at least `least`) that keep every distinct id of the column distinct. */
export function uniqueKeep(ids: Iterable<string>, least = MIN_ID_KEEP): number {
  const distinct = [...new Set(ids)].filter((id) => id !== '' && id !== '-');
  const longest = distinct.reduce((most, id) => Math.max(most, id.length), 0);
  for (let keep = least; keep < longest; keep++) {
    const seen = new Set(distinct.map((id) => shortenId(id, keep)));
    if (seen.size === distinct.length) return keep;
  }
  return longest;
}

/**
 * The least width (at least `least`, at most the widest value) at which `values`, each cut to it
 * with `ellipsis`, are still told apart: a cut name must never look like another name of its column.
 */
export function uniqueWidth(values: Iterable<string>, ellipsis: string, least = MIN_TEXT): number {
  const distinct = [...new Set(values)];
  const widest = distinct.reduce((most, v) => Math.max(most, textWidth(v)), 0);
  for (let width = least; width < widest; width++) {
    const seen = new Set(distinct.map((v) => cutToWidth(v, width, ellipsis)));
    if (seen.size === distinct.length) return width;
  }
  return Math.max(least, widest);
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
  const least = new Map<number, number>();
  if (wide) return { shown: all, widths: natural, idKeep, least };
  for (const i of all) {
    if (columns[i]!.kind === 'name')
      least.set(
        i,
        uniqueWidth(
          rows.map((r) => r[i] ?? ''),
          ellipsis,
        ),
      );
    if (columns[i]!.kind === 'url') least.set(i, Math.max(...rows.map((r) => hostsEnd(r[i] ?? ''))));
  }
  // Deciding which columns stay, a long text counts as COMFORTABLE wide: it is cut anyway, and
  // dropping every optional column would not make a 300-character permission list fit.
  const cut = (i: number) => ['text', 'name', 'url', 'detail'].includes(columns[i]!.kind);
  const comfortable = (i: number) =>
    cut(i) ? Math.min(natural[i]!, Math.max(COMFORTABLE, least.get(i) ?? 0)) : natural[i]!;
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

  // 3. Text and name columns cut, widest first; detail columns only once the others are at their minimum.
  const widths = shown.map((i) => idWidth.get(i) ?? natural[i]!);
  cutToFit(shown, widths, columns, terminalWidth, least);
  return { shown, widths, idKeep, least };
}

/**
 * Why a table is wider than the terminal: the name and URL columns held at their least width (no
 * two names alike, every host whole), if cutting them to a few characters would have made the table
 * fit (review22e L2); else what cannot be cut shorter (`uncut`: the id, time and status columns
 * shown, ids already at their unique prefix), alone when they alone are wider than the terminal,
 * else with the held names and URLs and the other columns (`least`: text cut as far as it goes, or
 * narrower than that whole) beside them: every column is then at its least width, and the note
 * names them all (session 24: such a table got no note; review24a L1: the note blamed the ids and
 * times of a table their 24 of 40 columns did not hold wide). `cut` are the columns shown, but ids
 * (their own note), with a value longer than the column (`widest`: each column's widest value
 * shown), which a pipe shows whole. undefined when the table fits, or when only text holds it wide
 * (more columns than the terminal has room for, none uncut).
 */
export function overflowCause(
  layout: TableLayout,
  terminalWidth: number,
  columns: ColumnFit[],
  widest: number[],
): { held: number[]; cut: number[]; uncut: number[]; least: number[] } | undefined {
  const excess = total(layout.widths) - terminalWidth;
  if (excess <= 0) return undefined;
  const widthOf = (i: number) => layout.widths[layout.shown.indexOf(i)]!;
  const kind = (i: number) => columns[i]!.kind;
  const held = layout.shown.filter(
    (i) =>
      (kind(i) === 'name' || kind(i) === 'url') &&
      widthOf(i) > MIN_TEXT &&
      widthOf(i) <= (layout.least.get(i) ?? 0),
  );
  const cut = layout.shown.filter((i) => kind(i) !== 'id' && (widest[i] ?? 0) > widthOf(i));
  const room = held.reduce((sum, i) => sum + widthOf(i) - MIN_TEXT, 0);
  if (held.length > 0 && room >= excess) return { held, cut, uncut: [], least: [] };
  const uncut = layout.shown.filter((i) => kind(i) === 'id' || kind(i) === 'time' || kind(i) === 'status');
  if (uncut.length === 0) return undefined;
  if (total(uncut.map(widthOf)) > terminalWidth) return { held: [], cut, uncut, least: [] };
  const least = layout.shown.filter((i) => !uncut.includes(i) && !held.includes(i));
  return { held, cut, uncut, least };
}

/**
 * Step 3 of fitTable: cuts text and name columns (then detail ones) of `widths` until they fit, a
 * name no narrower than its `least` width.
 */
function cutToFit(
  shown: number[],
  widths: number[],
  columns: ColumnFit[],
  terminalWidth: number,
  least: Map<number, number>,
): void {
  let excess = total(widths) - terminalWidth;
  for (const pass of [['text', 'name', 'url'], ['detail']]) {
    while (excess > 0) {
      let widest = -1;
      shown.forEach((i, at) => {
        if (!pass.includes(columns[i]!.kind) || widths[at]! <= Math.max(MIN_TEXT, least.get(i) ?? 0)) return;
        if (widest === -1 || widths[at]! > widths[widest]!) widest = at;
      });
      if (widest === -1) break;
      widths[widest]! -= 1;
      excess -= 1;
    }
  }
}

/**
 * The layout of a table's next chunk when its values need more room than the columns have (rows
 * above, already printed, are not to be changed): the id columns of `keeps` show that many
 * characters from now on, the columns of `widths` are at least that wide, `least` holds the least
 * widths now known of name and URL columns (overflowCause), and the other columns are cut again to
 * make room, a name or URL column never narrower than it is now.
 */
export function widenColumns(
  layout: TableLayout,
  keeps: Map<number, number>,
  widths: Map<number, number>,
  least: Map<number, number>,
  columns: ColumnFit[],
  terminalWidth: number,
): TableLayout {
  const idKeep = new Map([...layout.idKeep, ...keeps]);
  const next = layout.shown.map((i, at) => Math.max(layout.widths[at]!, widths.get(i) ?? 0));
  // A name column is never cut narrower than it is now: the names shown differ at this width.
  const floors = new Map(layout.least);
  layout.shown.forEach((i, at) => {
    if (floors.has(i)) floors.set(i, next[at]!);
  });
  cutToFit(layout.shown, next, columns, terminalWidth, floors);
  return { shown: layout.shown, widths: next, idKeep, least };
}
