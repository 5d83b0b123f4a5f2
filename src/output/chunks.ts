/**
 * A terminal table streamed in chunks (output.ts prints 500 rows at a time, so the first rows show
 * at once). The first chunk is laid out whole (fitTable); rows on the screen cannot change, so a
 * later chunk keeps the columns and widths, widened where its own values need it — one rule for
 * every kind of column (review22e L1, L2; session 23):
 *
 * - a shortened id column shows more characters where its ids, shortened as above, would read
 *   like one above (or like each other); a name (or URL) column is widened where a name cut as
 *   above would read like another; a note says from which row, since a row above still shows less;
 * - a URL column keeps every host whole, each chunk's own too;
 * - ids, times and statuses are never cut, a later chunk's longer ones too; with `--wide` nothing is.
 *
 * What is shown is kept once per column, with the cut each value shows (ShownCuts): each chunk
 * costs one pass over its own values, and all values shown again only when a column widens, which
 * a column does at most as many times as it has characters (so 20,000 rows cost 40 passes of 500,
 * not 40 passes over every id shown so far).
 */

import {
  type ColumnFit,
  fitTable,
  hostsEnd,
  overflowCause,
  shortenId,
  type TableLayout,
  uniqueKeep,
  uniqueWidth,
  widenColumns,
} from './layout.js';
import { cutToWidth, oneColumnEach, textWidth } from './width.js';

/**
 * Every distinct value a streamed table has shown in one column, and the cut each shows at the
 * column's size (a width, or an id's kept characters), so that a later chunk's value whose cut
 * reads like another's is found in one pass over the chunk.
 */
export class ShownCuts {
  readonly #values = new Set<string>();
  #cuts = new Map<string, string>();
  #size = -1;
  readonly #cut: (value: string, size: number) => string;
  readonly #least: (values: Iterable<string>, from: number) => number;
  readonly #counts: (value: string) => boolean;

  /**
   * `cut`: a value as the column shows it at a size; `least`: the least size (at least `from`) at
   * which every value differs; `counts`: whether a value is one (an empty id cell is not).
   */
  constructor(
    cut: (value: string, size: number) => string,
    least: (values: Iterable<string>, from: number) => number,
    counts: (value: string) => boolean = () => true,
  ) {
    this.#cut = cut;
    this.#least = least;
    this.#counts = counts;
  }

  /** Names cut with `ellipsis` to a width (uniqueWidth). */
  static names(ellipsis: string): ShownCuts {
    return new ShownCuts(
      (name, width) => cutToWidth(name, width, ellipsis),
      (names, from) => uniqueWidth(names, ellipsis, from),
    );
  }

  /** Ids shortened to characters kept after their type prefix (uniqueKeep, whose measure is `…`). */
  static ids(): ShownCuts {
    return new ShownCuts(
      (id, keep) => shortenId(id, keep),
      (ids, from) => uniqueKeep(ids, from),
      (id) => id !== '' && id !== '-',
    );
  }

  /**
   * The size (at least `size`) at which `values` and every value shown before differ; the values
   * count as shown. The same as `least` over all of them from `size`, in one pass over `values`
   * unless two read alike.
   */
  sizeFor(values: string[], size: number): number {
    if (size !== this.#size) this.#cutAt(size);
    let alike = false;
    for (const value of values) {
      if (this.#values.has(value) || !this.#counts(value)) continue;
      this.#values.add(value);
      const cut = this.#cut(value, size);
      const other = this.#cuts.get(cut);
      if (other !== undefined && other !== value) alike = true;
      else this.#cuts.set(cut, value);
    }
    if (!alike) return size;
    const wanted = this.#least(this.#values, size);
    this.#cutAt(wanted);
    return wanted;
  }

  /** Whether a value shown in this column is one `test` holds for. */
  some(test: (value: string) => boolean): boolean {
    for (const value of this.#values) if (test(value)) return true;
    return false;
  }

  #cutAt(size: number): void {
    this.#size = size;
    this.#cuts = new Map([...this.#values].map((value) => [this.#cut(value, size), value]));
  }
}

/** One chunk laid out: its layout, and the notes for stderr before and after its rows. */
export interface LaidChunk {
  layout: TableLayout;
  before: string[];
  after: string[];
}

/** A terminal table laid out chunk by chunk (see the top of this file). */
export class StreamedTable {
  readonly #head: string[];
  readonly #fit: ColumnFit[];
  readonly #terminalWidth: number;
  readonly #wide: boolean;
  readonly #ellipsis: string;
  #layout: TableLayout | undefined;
  /** Each shortened id column's ids, and each name or URL column's values, as shown. */
  readonly #shown = new Map<number, ShownCuts>();
  /** Each column's widest value so far (what a pipe shows of it). */
  readonly #widest: number[];
  #overflowSaid = false;

  constructor(head: string[], fit: ColumnFit[], terminalWidth: number, wide: boolean, ellipsis: string) {
    this.#head = head;
    this.#fit = fit;
    this.#terminalWidth = terminalWidth;
    this.#wide = wide;
    this.#ellipsis = ellipsis;
    this.#widest = head.map(() => 0);
  }

  /**
   * The layout of the next chunk, whose first row is the table's row `firstRow` (1 for the first).
   * `leastKeep`: the characters a first chunk's shortened ids keep at least.
   */
  next(chunk: string[][], firstRow: number, leastKeep?: number): LaidChunk {
    const column = (i: number) => chunk.map((cells) => cells[i]!);
    const widths = this.#head.map((_, i) => Math.max(...column(i).map(textWidth)));
    widths.forEach((w, i) => {
      this.#widest[i] = Math.max(this.#widest[i]!, w);
    });
    if (this.#layout === undefined) return this.#first(chunk, column, leastKeep);
    return this.#later(column, widths, firstRow);
  }

  #first(chunk: string[][], column: (i: number) => string[], leastKeep: number | undefined): LaidChunk {
    const layout = fitTable(this.#head, chunk, this.#fit, this.#terminalWidth, this.#wide, this.#ellipsis, {
      leastKeep,
    });
    this.#layout = layout;
    for (const [i, keep] of layout.idKeep) {
      const ids = ShownCuts.ids();
      ids.sizeFor(column(i), keep);
      this.#shown.set(i, ids);
    }
    // The first chunk's names differ at their widths (fitTable); they count as shown.
    for (const i of layout.least.keys()) {
      const at = layout.shown.indexOf(i);
      if (at === -1) continue;
      const names = ShownCuts.names(this.#ellipsis);
      names.sizeFor(column(i), layout.widths[at]!);
      this.#shown.set(i, names);
    }
    const after =
      layout.idKeep.size > 0 ? ['(ids shortened to fit: --wide, a pipe or --json shows them whole)'] : [];
    const overflow = this.#overflowNote(1);
    return { layout, before: [], after: overflow === undefined ? after : [...after, overflow] };
  }

  #later(column: (i: number) => string[], natural: number[], firstRow: number): LaidChunk {
    let layout = this.#layout!;
    const keeps = new Map<number, number>();
    const wanted = new Map<number, number>();
    /** Columns widened so that no value reads like one above: the note names them. */
    const alike = new Map<number, number>();
    const least = new Map(layout.least);
    const want = (i: number, width: number) => {
      if (width > layout.widths[layout.shown.indexOf(i)]!) wanted.set(i, Math.max(wanted.get(i) ?? 0, width));
    };
    for (const i of layout.shown) {
      const kind = this.#fit[i]!.kind;
      const values = column(i);
      const shown = this.#shown.get(i);
      const keep = layout.idKeep.get(i);
      const width = layout.widths[layout.shown.indexOf(i)]!;
      if (this.#wide) want(i, natural[i]!);
      else if (keep !== undefined && shown !== undefined) {
        const more = shown.sizeFor(values, keep);
        if (more !== keep) keeps.set(i, more);
        want(i, Math.max(...values.map((id) => textWidth(shortenId(id, more, this.#ellipsis)))));
      } else if (kind === 'id' || kind === 'time' || kind === 'status') want(i, natural[i]!);
      else if (shown !== undefined) {
        const more = shown.sizeFor(values, width);
        if (more > width) {
          alike.set(i, more);
          least.set(i, more);
          want(i, more);
        }
        if (kind === 'url') {
          const hosts = Math.max(...values.map(hostsEnd));
          least.set(i, Math.max(least.get(i) ?? 0, hosts));
          want(i, hosts);
        }
      }
    }
    if (keeps.size === 0 && wanted.size === 0) {
      this.#layout = { ...layout, least };
      return { layout: this.#layout, before: [], after: [] };
    }
    const terminalWidth = this.#wide ? Number.POSITIVE_INFINITY : this.#terminalWidth;
    layout = widenColumns(layout, keeps, wanted, least, this.#fit, terminalWidth);
    this.#layout = layout;
    const before: string[] = [];
    // A column widened for its hosts too says the width it has.
    for (const i of alike.keys()) alike.set(i, layout.widths[layout.shown.indexOf(i)]!);
    if (keeps.size > 0 || alike.size > 0) before.push(this.#widenedNote(keeps, alike, firstRow));
    const overflow = this.#overflowNote(firstRow);
    if (overflow !== undefined) before.push(overflow);
    return { layout, before, after: [] };
  }

  /**
   * `(ids show 9 characters and ACTION 12 from row 501 on: fewer would read like one above)`: the
   * columns that show more from this row on; a row above shows less, and may read like these. A
   * name column is measured as the layout measures it, in terminal columns: the same count as its
   * characters unless a name it cuts takes other than one column a character (CJK, emoji), whose
   * count is then said in terminal columns (session 24: `NAME shows 15 characters` of 8 shown).
   */
  #widenedNote(keeps: Map<number, number>, alike: Map<number, number>, firstRow: number): string {
    const parts: string[] = [];
    let unit: string | undefined;
    if (keeps.size > 0) {
      parts.push(`ids show ${[...new Set(keeps.values())].join(' or ')} characters`);
      unit = 'characters';
    }
    const mark = textWidth(this.#ellipsis);
    for (const [i, width] of alike) {
      const wide = this.#shown.get(i)?.some((name) => textWidth(name) > width && !oneColumnEach(name));
      const its = wide ? 'terminal columns' : 'characters';
      const count = `${width - mark}${its === unit ? '' : ` ${its}`}`;
      unit = its;
      parts.push(`${this.#head[i]} ${parts.length === 0 ? 'shows ' : ''}${count}`);
    }
    const kinds = new Set([
      ...(keeps.size > 0 ? ['id'] : []),
      ...[...alike.keys()].map((i) => this.#fit[i]!.kind),
    ]);
    const one = kinds.size > 1 ? 'one' : kinds.has('id') ? 'an id' : kinds.has('url') ? 'a URL' : 'a name';
    return `(${andList(parts)} from row ${firstRow} on: fewer would read like ${one} above)`;
  }

  /**
   * Once per table: why it is wider than the terminal (overflowCause): its names or URLs, or what
   * cannot be shorter (ids, times, statuses), alone or with every other column at its least width,
   * worded for what is wide, and sending the reader to a pipe for every column shown cut (review24a
   * L1: a text column cut to its least was not). Not with --wide, whose lines are let wrap.
   */
  #overflowNote(firstRow: number): string | undefined {
    if (this.#overflowSaid || this.#wide) return undefined;
    const cause = overflowCause(this.#layout!, this.#terminalWidth, this.#fit, this.#widest);
    if (cause === undefined) return undefined;
    this.#overflowSaid = true;
    const heads = (columns: number[]) => andList(columns.map((i) => this.#head[i]!));
    const of = (kind: string) => cause.held.filter((i) => this.#fit[i]!.kind === kind);
    const are = cause.least.length === 1 ? 'is at its' : 'are at their';
    const why = [
      ...(cause.uncut.length > 0 ? [`${heads(cause.uncut)} cannot be shorter`] : []),
      ...(of('name').length > 0 ? [`the names in ${heads(of('name'))} would read alike cut shorter`] : []),
      ...(of('url').length > 0 ? [`the URLs in ${heads(of('url'))} keep their hosts whole`] : []),
      ...(cause.least.length > 0 ? [`${heads(cause.least)} ${are} least width`] : []),
    ].join(', and ');
    // "them" only where every column named is one a pipe shows more of, and no other is.
    const named = [...cause.held, ...cause.least];
    const them =
      cause.uncut.length === 0 &&
      cause.cut.length === named.length &&
      cause.cut.every((i) => named.includes(i));
    const whole =
      cause.cut.length === 0 ? '' : `; a pipe or --json shows ${them ? 'them' : heads(cause.cut)} whole`;
    const from = firstRow > 1 ? ` from row ${firstRow} on` : '';
    return `(the table is wider than the terminal${from}: ${why}${whole})`;
  }
}

function andList(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
