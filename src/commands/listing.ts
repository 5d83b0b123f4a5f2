/**
 * `--limit`, `--cursor` and `--all`, the same for every list verb: `--limit` is the most items
 * printed in total (default 50, or every one with --all alone), pages are an internal matter (as
 * large as the API allows, the last one sized to end exactly at --limit, so its cursor continues
 * exactly there; a page whose size is the server's is cut there instead, its cursor naming the
 * same page and the items of it printed), and --all streams page
 * after page as they arrive. Past 300 lines (314): the check of a --cursor answer a server may have
 * answered from the list's start (#cursorIgnored) belongs to the listing that reads it.
 */
import { Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { itemKey } from '../http/item-key.js';
import {
  CursorTrail,
  cursorAfter,
  cursorNaming,
  cursorWithin,
  isOwnCursor,
  isWholeListCursor,
  lastOf,
  namesPosition,
  PRINTED_LAST,
  printedOf,
  skipOf,
  twiceNote,
} from '../http/paging.js';
import type { Page } from '../platform/index.js';
import { shellWord } from '../system/shell-words.js';
import { intFlag, nonEmpty } from './kit.js';

/** The largest --limit: a total, so any count a person could want. */
export const LIMIT_MAX = 10_000_000;
export const DEFAULT_LIMIT = 50;

export interface ListingOptions {
  /** At most this many items in total; undefined with --all alone (every one). */
  limit: number | undefined;
  cursor: string | undefined;
  all: boolean;
}

export function parseListing(flags: Record<string, unknown>): ListingOptions {
  const all = flags.all === true;
  const limit = intFlag('--limit', flags.limit, 1, LIMIT_MAX);
  return {
    limit: limit ?? (all ? undefined : DEFAULT_LIMIT),
    cursor: flags.cursor === undefined ? undefined : nonEmpty('--cursor', flags.cursor),
    all,
  };
}

/**
 * The flags of a list the API may give whole, in one answer with no cursor (OAuth clients, API
 * keys): --limit still bounds the rows printed, and the continuation says how many of how many
 * were shown and to give --all (one request reads them all anyway). svc prints no cursor of its
 * own for such a list: a count of rows to skip repeated or skipped rows when the list changed
 * between two commands, and was taken on another tenant's list (review27a F1). A list that never
 * pages (`paged: false`: the OAuth clients, whose schema has no cursor) refuses --cursor before
 * any request; one a server may page takes a cursor svc printed for the server's pages, each in
 * svc's own form (Listing, `wholeOf`), so a cursor of any other kind, which a server answering
 * whole would ignore and list from the start, is refused before any request too.
 */
export function parseWholeListing(
  flags: Record<string, unknown>,
  command: string,
  paged: boolean,
): ListingOptions {
  const options = parseListing(flags);
  if (options.cursor !== undefined && !paged) throw wholeCursorError(command);
  if (options.cursor !== undefined && !isOwnCursor(options.cursor)) {
    throw new UsageError(`--cursor ${shellWord(options.cursor)} is not one \`svc ${command}\` printed`, {
      hint: `give the cursor of svc's "more with:" line, or --all to list every one`,
    });
  }
  return options;
}

/** --cursor given where the answer is whole: there is nothing for a cursor to name. */
export function wholeCursorError(command: string): UsageError {
  return new UsageError(
    `\`svc ${command}\` takes no --cursor: the API gives this list whole, in one answer`,
    {
      hint: 'give --all to list every one (or a larger --limit)',
    },
  );
}

/** What the help of a list the API gives whole adds about the paging flags. */
export const WHOLE_LIST_HELP =
  'The API gives this list whole, in one answer: --limit bounds the rows printed, and --all prints every one.';

/** One of `items`: deliveries → delivery, entries → entry, tenants → tenant. */
export function singular(items: string): string {
  return items.endsWith('ies') ? `${items.slice(0, -3)}y` : items.replace(/s$/, '');
}

/** The three flags, worded the same on every list verb; `items` names what is listed (`item`, one of them). */
export function listingOptions(items: string, item = singular(items)): Option[] {
  return [
    new Option(
      '--limit <n>',
      `at most N ${items} in total (default ${DEFAULT_LIMIT}; with --all: every one)`,
    ),
    new Option('--cursor <cursor>', 'continue where a previous listing stopped'),
    new Option('--all', `every ${item}, streamed as pages arrive`),
  ];
}

/**
 * The flags given a value, as they continue a command line svc prints (` --status failed
 * --since 2026-…`): a cursor is bound to the filters that produced it, so a listing's continuation
 * repeats them, each value one shell word.
 */
export function flagWords(flags: Array<[flag: string, value: string | undefined]>): string {
  return flags.map(([flag, value]) => (value === undefined ? '' : ` ${flag} ${shellWord(value)}`)).join('');
}

/**
 * Reads a paged list within the listing's bounds. `items()` yields as pages arrive; afterwards
 * `next` is the cursor to continue from (null when the list is exhausted) and `lastPage` the last
 * page read (for totals and summaries).
 */
export class Listing<T, P extends Page<T> = Page<T>> {
  next: string | null | undefined;
  shown = 0;
  lastPage: P | undefined;
  /** Items pages repeated of the items before them, printed once (paging.ts CursorTrail.read). */
  twice = 0;
  /** The rows of a whole answer (one with no cursor, to a request with none) cut at --limit. */
  whole: number | undefined;
  /** The --cursor whose whole answer started as the list does (#cursorIgnored): warned of in hintMore. */
  #cursorDoubt: string | undefined;
  /** The --cursor whose answer held its own row after `ahead` others, left out (#cursorIgnored): said in hintMore. */
  #cursorAhead: { cursor: string; key: string; ahead: number } | undefined;

  constructor(
    private readonly options: ListingOptions,
    /** The API's largest page. */
    private readonly pageMax: number,
    /**
     * The command of a list the API may give whole (parseWholeListing): a whole answer cut at
     * --limit continues with --all, never with a cursor counting its rows; and a cursor of svc's
     * own that asks the first page again is refused where the answer is whole (review27a F1).
     */
    private readonly wholeOf?: string,
  ) {
    this.next = options.cursor;
  }

  async *items(fetchPage: (page: { limit: number; cursor?: string }) => Promise<P>): AsyncGenerator<T> {
    const { limit } = this.options;
    const trail = new CursorTrail(this.next ?? undefined);
    // The items printed last, for the cursor of a --limit reached at a page's end (cursorAfter).
    let last: T[] = [];
    do {
      const left = limit === undefined ? this.pageMax : limit - this.shown;
      const asked = this.next ?? undefined;
      let page: P;
      let twice: ReadonlySet<T>;
      try {
        page = await fetchPage({ limit: Math.min(this.pageMax, left), ...(asked ? { cursor: asked } : {}) });
        twice = trail.read(page.items, asked);
        this.twice = trail.twice;
      } catch (error) {
        throw trail.failed(error);
      }
      this.lastPage = page;
      // A page of another server's size (a first page too), or a link as it was written, may hold
      // more than --limit lets print: the listing stops within it, and its cursor continues there
      // (paging.ts cursorWithin), after the last item printed: the items of the page left out
      // before it as repeats are counted too, or the next command would print one again
      // (R21d-2), and the ones left out after it whose first copy was printed are named, for the
      // next command has no page before to compare them with (brief paging23 2; a repeat whose
      // first copy is after the cut too is read again by the next command: review23a F1).
      const rest = page.items.slice(skipOf(asked));
      let items = rest.filter((item) => !twice.has(item));
      const whole = this.wholeOf !== undefined && !page.next_cursor;
      if (whole && asked !== undefined && isWholeListCursor(asked)) throw wholeCursorError(this.wholeOf!);
      // A page of the server's own cursor within this run is checked by the trail (a whole page repeated).
      // Its first page, whole or not: a server ignoring the cursor may page from the list's start too.
      if (
        this.wholeOf !== undefined &&
        asked !== undefined &&
        asked === this.options.cursor &&
        this.shown === 0
      ) {
        const before = new Set(rest.slice(0, await this.#cursorIgnored(fetchPage, rest, asked, whole)));
        items = items.filter((item) => !before.has(item));
      }
      if (whole && asked === undefined) {
        this.next = null;
        const shown = limit === undefined ? items : items.slice(0, left);
        if (shown.length < items.length) this.whole = items.length;
        for (const item of shown) {
          this.shown++;
          yield item;
        }
        return;
      }
      let within: string | undefined;
      if (limit !== undefined && items.length > left) {
        const cut = rest.indexOf(items[left - 1]!) + 1;
        // A page asked by position names the items printed on it too (the last PRINTED_LAST, a
        // command's before included): a list gaining items ahead of it before the next command
        // shifts them past the `#skip` (session 24's closing note: printed again).
        const here = namesPosition(asked)
          ? page.items.slice(0, skipOf(asked) + cut).slice(-PRINTED_LAST)
          : [];
        const keys = here.map(itemKey).filter((key): key is string => key !== undefined);
        within = cursorWithin(asked, cut, trail.cut(rest.slice(cut), twice), [...keys, ...trail.unmet()]);
        this.twice = trail.twice;
      }
      const shown = within === undefined ? items : items.slice(0, left);
      last = [...last, ...shown.slice(-PRINTED_LAST)].slice(-PRINTED_LAST);
      // --limit reached exactly at the page's end: the next page's cursor, naming the items
      // printed last when that page is asked by position (a list gaining items ahead of it
      // between the two commands starts it with them), and those the start cursor named that
      // no page read held (review24a M1: a gain larger than this command's pages shifts them on).
      const filled = limit !== undefined && within === undefined && this.shown + items.length >= limit;
      const next = page.next_cursor;
      this.next = within ?? (filled && next ? cursorAfter(next, last, trail.unmet()) : next) ?? null;
      // A server's cursor, in svc's own form, which parseWholeListing tells from any other.
      // It names the row printed last, which a server ignoring the cursor answers again (#cursorIgnored).
      if (this.wholeOf !== undefined && this.next && !isOwnCursor(this.next))
        this.next = cursorNaming(this.next, last.at(-1));
      for (const item of shown) {
        this.shown++;
        yield item;
      }
      // Another page is read only from a cursor not sent before: one sent again is a loop. The
      // items counted are the ones printed (not those of a #skip page printed before).
      if (limit === undefined || this.shown < limit) trail.next(items.length, this.next);
    } while (this.next && (limit === undefined || this.shown < limit));
  }

  /**
   * A list the API may give whole, answered without a next cursor to a request with one (fixnum2;
   * with one too, for the row the cursor names):
   * the last page of a server that pages, or the whole list from a server that ignores the cursor,
   * which printed as the rows after it were the first rows again. The cursor svc printed names the
   * row printed last before it (cursorNaming): an answer holding that row started before the
   * cursor, whatever the list's head did meanwhile (brief fixlists 1: a key created between the
   * two reads below hid it), so only the rows after it are printed (the ones before it were printed
   * by the command before, or came ahead of the place the cursor names since), said when any but
   * rows the cursor named is left out. Returns how many of `rows` are left out so. Otherwise (that
   * row removed since, or an older cursor naming none) svc cannot tell the answer from a last page
   * (a server may leave `next_cursor` out of its last page), so it asks the list's first page: an
   * answer starting with the same row may be the list from its start, or a valid last page whose
   * rows before the cursor were removed since (review28a L2). The rows are printed and hintMore
   * warns: refusing valid data would be wrong.
   */
  async #cursorIgnored(
    fetchPage: (page: { limit: number; cursor?: string }) => Promise<P>,
    rows: readonly T[],
    asked: string,
    whole: boolean,
  ): Promise<number> {
    // Only the field cursorNaming writes (`&last=`) names a position: `&printed=` also names repeats
    // after a --limit cut and keys printed on a page asked by position (review29b M2: a row neither
    // command printed was left out, as "from before the cursor").
    const last = lastOf(asked);
    const named = printedOf(asked);
    const at = last === undefined ? -1 : rows.findLastIndex((row) => itemKey(row) === last);
    if (at >= 0) {
      const ahead = rows.slice(0, at).filter((row) => !named.includes(itemKey(row) as string)).length;
      if (ahead > 0) this.#cursorAhead = { cursor: asked, key: itemKey(rows[at])!, ahead };
      return at + 1;
    }
    // A page with a next cursor is told from the list's start by the trail (a whole page repeated).
    const first = whole && rows.length > 0 ? itemKey(rows[0]) : undefined;
    if (first === undefined) return 0;
    const start = await fetchPage({ limit: this.pageMax });
    if (start.items.length > 0 && itemKey(start.items[0]) === first) this.#cursorDoubt = asked;
    return 0;
  }

  /**
   * On stderr, in every output mode (stdout keeps its shape; a script has no other way to learn
   * the cursor): where to continue, when there is more. One wording on every list (attack26a
   * F11): `50 shown; more with: …`, and `50 of 450 shown; more with: …` where the server gave a
   * total of what matches (the dead-letter queue's).
   */
  hintMore(ctx: Context, command: string, total?: number): void {
    if (this.#cursorDoubt !== undefined) {
      ctx.out.warn(
        `the server answered \`svc ${this.wholeOf}\` for --cursor ${shellWord(this.#cursorDoubt)} with a last page that starts with the same row as the list's first page: it may have ignored the cursor (then these are the list's first rows, not the ones after it), or the rows before the cursor were removed since; every one with: ${command}${ctx.out.isMachine ? ` --${ctx.out.mode}` : ''} --all`,
      );
    }
    if (this.#cursorAhead !== undefined) {
      const { cursor, key, ahead } = this.#cursorAhead;
      ctx.out.warn(
        `the server answered \`svc ${this.wholeOf}\` for --cursor ${shellWord(cursor)} with rows from before it: ${ahead.toLocaleString('en')} row${ahead === 1 ? '' : 's'} then ${key}, the row printed last before the cursor (the server ignored the cursor, or rows were added ahead of it since); only the rows after ${key} are printed; every one with: ${command}${ctx.out.isMachine ? ` --${ctx.out.mode}` : ''} --all`,
      );
    }
    const note = twiceNote(this.twice);
    if (note !== undefined) ctx.out.info(note);
    const mode = ctx.out.isMachine ? ` --${ctx.out.mode}` : '';
    if (this.whole !== undefined) {
      const [shown, whole] = [this.shown, this.whole].map((n) => n.toLocaleString('en'));
      ctx.out.info(`${shown} of ${whole} shown; every one with: ${command}${mode} --all`);
      return;
    }
    if (!this.next) return;
    // From a --cursor, the items shown are not the first of the total (attack27b F8: "10 of 23" again).
    const of =
      total === undefined
        ? ''
        : `${this.options.cursor === undefined ? '' : ' more'} of ${total.toLocaleString('en')}`;
    ctx.out.info(
      `${this.shown.toLocaleString('en')}${of} shown; more with: ${command}${mode} --cursor ${shellWord(this.next)}${this.options.all ? '' : '  (or --all)'}`,
    );
  }
}
