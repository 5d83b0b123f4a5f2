// Over 300 lines: every page shape svc follows (cursors, offsets, Stripe's, Link headers,
// HAL/JSON:API links, numbered pages) and the one rule that a list is never silently partial.
import { SvcError, UsageError } from '../errors.js';
import { quoted } from '../output/format.js';
import { sym } from '../output/symbols.js';
import { nonEmptyText } from './errors.js';
import { itemKey } from './item-key.js';
import { joinUrl } from './path.js';
import type { Headers } from './send.js';

/**
 * The cursor a listing starts from: a `cursor` query field (a string; --cursor, -f cursor=C), or
 * one written in the path (svc api '/v1/tenants?cursor=C'), which the field of the next page
 * replaces.
 */
export function startCursor(path: string, query: Record<string, unknown>): string | undefined {
  if (typeof query.cursor === 'string') return query.cursor;
  const search = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  return new URLSearchParams(search).get('cursor') ?? undefined;
}

/**
 * The one stderr note of a listing whose pages repeated `twice` items of the pages before them,
 * each printed once (CursorTrail.read), or undefined for none. `kept`: what became of them, for a
 * command that reads its lists whole and prints none of them; `lists`: which lists (keptNote).
 */
export function twiceNote(
  twice: number,
  done: 'printed' | 'kept' = 'printed',
  lists: readonly string[] = [],
): string | undefined {
  if (twice === 0) return undefined;
  const items = `${twice.toLocaleString('en')} item${twice === 1 ? '' : 's'}`;
  const more = lists.length > 3 ? ` and ${lists.length - 3} more` : '';
  const which = `${lists.slice(0, 3).join(', ')}${more}`;
  const changed =
    lists.length === 0
      ? 'the list changed while svc read it'
      : lists.length === 1
        ? `the list ${which} changed while svc read it`
        : `the lists ${which} changed while svc read them`;
  return `${changed}: ${items} seen twice ${twice === 1 ? 'was' : 'were'} ${done} once`;
}

/**
 * The one warning of the lists a run read whole that repeated items of their pages before, each
 * kept once (ApiClient.keptTwice: how many, by list), or undefined for none, naming the lists (three,
 * then how many more): a list that changed while svc read it may also have lost an item to its
 * reading, and the person must know which (closing note of session 23: export, plan and apply
 * said it as a plain line, naming none).
 */
export function keptNote(lists: ReadonlyMap<string, number>): string | undefined {
  const named = [...lists].filter(([, count]) => count > 0).map(([list]) => list);
  const twice = [...lists.values()].reduce((sum, count) => sum + count, 0);
  return twiceNote(twice, 'kept', named);
}

/**
 * How many items' keys a listing keeps to find repeats (CursorTrail.read): the last 100,000 read,
 * about 10 MB whatever the list's length (measured: 10.6 MB held after 500,000 users' ids, 10.5 MB
 * after 1M and after 3M audit-like ids; test/unit/http-paging-repeats.test.ts), so the keys no longer grow with the list (review23a F4: 66 MB a million
 * items, and 8 million aborted with V8's heap trace). The cursors sent (`#sent`, to find a loop)
 * still grow with the pages read: review23d L1 measured 11.7 MB held after 10,000 pages and
 * 19.4 MB after 80,000 (1M and 8M items in pages of 100). A repeat of an item read further back than
 * that is printed again, as before session 23; a repeat within one page is found whatever its size.
 */
export const SEEN_MAX = 100_000;

/** A cursor longer than this is shown cut, in an error line. */
const SHOWN_CURSOR = 60;

/**
 * Following `next_cursor` page after page, the same for the list verbs (commands/listing.ts) and
 * `svc api --paginate` (ApiClient.paginate): every cursor sent is remembered, so a server that
 * sends one again (c1 → c1, or c1 → c2 → c1) stops the listing with one line naming the loop
 * instead of reading the same pages forever; and a failure after the first page says the listing
 * is incomplete and after how many items (what was printed is not the whole list).
 */
export class CursorTrail {
  readonly #sent = new Set<string>();
  /** The keys (item-key.ts) of the items of the page read last. */
  #keys = new Set<string>();
  /** The keys of the last `#window` items read (read()): a repeat among them is printed once. */
  readonly #seen = new Set<string>();
  /** `#seen` in the order read, a ring: the oldest key is dropped for each new one past `#window`. */
  readonly #order: string[] = [];
  #oldest = 0;
  readonly #window: number;
  #pages = 0;
  #items = 0;
  /** How many pages held only items read before, in all (read(); review23a F7, review24a M2). */
  #onlyRepeats = 0;
  /** How many pages held an item not read before (read(): #onlyRepeats may be 20 more). */
  #newPages = 0;
  /** How many pages read() was given, empty ones included: the count its stop line gives. */
  #pagesRead = 0;
  /** How many empty pages read() was given in a row, since the last page holding an item. */
  #emptyRun = 0;
  readonly #emptyMax: number;
  /** How many items pages repeated of the items before them, printed once (read()). */
  twice = 0;
  /**
   * The keys the start cursor's `&printed=` names (the command before printed them) that no page
   * of this listing has held yet: left out of whichever page holds them, and handed on by the
   * listing's own cursor (unmet()) until one does (review24a M1: only the first page was checked).
   */
  readonly #printedBefore: Set<string>;
  readonly #repeats: 'stop' | 'counted once';

  /**
   * `start`: the cursor the listing starts from (--cursor), if any. `repeats`: what a page
   * repeating items of the page before it does (read()): `stop`, for every listing that prints
   * its rows or is judged once (the list verbs, `svc api --paginate`, what export, plan and
   * apply read): the items it repeats are left out of it (each printed once) and a page
   * repeating the whole page before stops the listing; or `counted once`, for the dead-letter
   * drains and their count, which count each entry once themselves (item-key.ts) and list the
   * queue again until it settles, so a repeat costs nothing and an entry a shift left out is
   * found by the next listing (RELIABILITY "A queue drain ends with the queue it counted").
   * `emptyMax`: how many empty pages in a row stop the listing (EMPTY_PAGES_MAX; a test's lower).
   */
  constructor(
    start?: string,
    repeats: 'stop' | 'counted once' = 'stop',
    window = SEEN_MAX,
    emptyMax = EMPTY_PAGES_MAX,
  ) {
    if (start) this.#sent.add(start);
    this.#printedBefore = new Set(repeats === 'stop' ? ownPage(start)?.printed : undefined);
    this.#repeats = repeats;
    this.#window = window;
    this.#emptyMax = emptyMax;
  }

  /**
   * After a page of `items` items whose `next_cursor` is `next`: the cursor to send next, or
   * undefined at the end of the list (no cursor, or an empty one). A cursor already sent throws.
   */
  next(items: number, next: unknown): string | undefined {
    this.#pages++;
    this.#items += items;
    if (typeof next !== 'string' || next === '') return undefined;
    if (this.#sent.has(next)) {
      throw new SvcError(
        'failure',
        `the server sent the cursor ${JSON.stringify(shownCut(next))} again after ${this.#pages.toLocaleString('en')} page${this.#pages === 1 ? '' : 's'} (a cursor loop); svc stopped rather than read the same pages forever, so the listing is incomplete`,
        { code: 'cursor_loop', hint: "the server's paging is broken: report it to its operator" },
      );
    }
    this.#sent.add(next);
    return next;
  }

  /**
   * A page's items, before any is printed: the ones the listing has already printed (or read),
   * which it leaves out of this page, so no item is printed twice. Items are told apart by their
   * key (item-key.ts: an id, a grant's audit entry…); an item without one is not compared. The
   * keys of the last SEEN_MAX items read are kept, the keys only (measured over 100,000 items:
   * 7 MB of users' ids, 11 MB of grants' keys; test/unit/http-paging-repeats.test.ts), so a
   * repeat is found wherever it comes within them: on the next page or pages later, at a page's
   * head or further on, on a page of any shape (a link's too), and twice within one page.
   *
   * Why a page repeats items. A page svc asked for by position (its own cursor: a page number,
   * an offset) whose list gained items ahead of the position while svc read it (a newest-first
   * audit log on a busy tenant) starts with the last few of the page before, and the items after
   * them are the next ones of the list as it was: nothing is lost by printing each once and going
   * on (review21c F4; a deletion ahead loses an item and shows no repeat at all, as with any
   * paging by position). A server's own cursor may be an offset inside (the same), or its list
   * may list an item twice (a join, an item indexed again under a changed sort key before its old
   * entry went): printed as it came, that was a row twice (brief paging23 1). A page repeating
   * the *whole* page before is another matter: a page asked by position whose server counts its
   * pages otherwise than its first page said (from 1, the first saying `page: 0`, answers page=1
   * with the first page again) or ignores the position asked for (fix-list21 3a), or a page of a
   * cursor (the server's `next_cursor`, `starting_after`) whose server ignores the cursor (brief
   * paging22 3), or a page of a link whose list gained a page or whose server links back to a
   * page already read: the page
   * after it would never be read, and the listing stops before printing it (a link page of only
   * repeats was once printed as it came; left out, as every repeat now is, it looped printing
   * nothing: review of paging23).
   *
   * A page asked again by a cursor of svc's own cut within it (cursorWithin): its first `#skip`
   * items were printed by the command before. The items the start cursor's `&printed=` names
   * (repeats of that command's pages after the last item it printed, or the items it printed
   * last) were printed by it too: they are left out of whichever page of this listing holds them
   * first (a list gaining more items than this command's first page holds shifts them further:
   * review24a M1), and not counted again. `twice` counts the items left out as repeats this
   * listing saw.
   */
  read<T>(items: readonly T[], asked: string | undefined): ReadonlySet<T> {
    const repeated = new Set<T>();
    // Empty pages are no repeats (a sparse filter's are legitimate), but not without end: every
    // listing, a drain's too (session 25: a server sending them for ever was read for ever).
    this.#emptyRun = items.length === 0 && asked !== undefined ? this.#emptyRun + 1 : 0;
    if (this.#emptyRun >= this.#emptyMax) throw emptyPages(this.#emptyRun, this.#items);
    // A dead-letter drain counts each entry once itself (constructor).
    if (this.#repeats !== 'stop') return repeated;
    this.#pagesRead++;
    const keys = new Set<string>();
    const own = ownPage(asked);
    const skip = own?.skip ?? 0;
    let twice = 0;
    items.forEach((item, index) => {
      const key = itemKey(item);
      if (key === undefined) return;
      // The page's own keys too: a page larger than the window still finds an item twice on it.
      const again = keys.has(key) || this.#seen.has(key);
      keys.add(key);
      if (index >= skip && again) {
        repeated.add(item);
        twice++;
        return;
      }
      if (!this.#seen.has(key)) this.#remember(key);
      if (this.#printedBefore.delete(key) && index >= skip) repeated.add(item);
    });
    const before = this.#keys;
    this.#keys = keys;
    const at = own?.way === 'page' || own?.way === 'offset' ? own : undefined;
    // A cursor page: one svc asked with a cursor not its own (the server's), or starting_after.
    const cursorPage =
      asked !== undefined &&
      (own === undefined || own.way === 'starting_after' || own.way === 'cursor' || own.way === 'link');
    const whole =
      (at !== undefined || cursorPage) && before.size > 0 && [...before].every((key) => keys.has(key));
    if (whole) {
      const [first] = before;
      throw wholeRepeat(at ?? own, asked!, first!);
    }
    const rest = items.slice(skip);
    const stale = rest.length > 0 && rest.every((item) => repeated.has(item));
    if (stale) this.#onlyRepeats++;
    else if (rest.length > 0) this.#newPages++;
    if (this.#onlyRepeats >= this.#newPages + REPEATED_PAGES_MAX) {
      // Every page read, empty ones too (session 25: a line of "21 of the 22 pages" after 43 read).
      throw onlyRepeats(this.#onlyRepeats, this.#pagesRead);
    }
    this.twice += twice;
    return repeated;
  }

  /** The keys the start cursor named as printed that no page read has held (#printedBefore). */
  unmet(): string[] {
    return [...this.#printedBefore];
  }

  /** Keeps `key` among the last `#window` keys read, dropping the oldest past it (review23a F4). */
  #remember(key: string): void {
    if (this.#order.length < this.#window) this.#order.push(key);
    else {
      this.#seen.delete(this.#order[this.#oldest]!);
      this.#order[this.#oldest] = key;
      this.#oldest = (this.#oldest + 1) % this.#window;
    }
    this.#seen.add(flat(key));
  }

  /**
   * A listing cut within the page read last, after its items printed: `after`, the items of that
   * page after the cut (`repeated`, its read() answer). The repeats among them of items printed
   * (by this command, on a page before or before the cut, or by the command before: `#skip`,
   * `&printed=`), which the cursor names so the next command leaves them out (cursorWithin); a
   * repeat whose first copy is after the cut too was printed by no command, and the next command
   * reads both copies again: it is not named, and not counted as printed once here (review23a F1:
   * [a0, a1, a1] cut after a0 named a1, and the next command left out both copies).
   */
  cut<T>(after: readonly T[], repeated: ReadonlySet<T>): T[] {
    const unprinted = new Set<string>();
    const printed: T[] = [];
    for (const item of after) {
      const key = itemKey(item);
      if (key === undefined) continue;
      if (!repeated.has(item)) unprinted.add(key);
      else if (unprinted.has(key)) this.twice--;
      else printed.push(item);
    }
    return printed;
  }

  /**
   * A page's failure, as the listing reports it: after the first page, the message says the
   * listing is incomplete and how many items came before (the error's class, code and exit code
   * are kept). A Ctrl-C or a closed stdout says what it says.
   */
  failed(error: unknown): unknown {
    if (this.#pages === 0 || !(error instanceof SvcError)) return error;
    // Its own line says what was listed, and no page failed.
    if (error.code === 'paging_empty') return error;
    if (error.category === 'interrupted' || error.category === 'stdout_closed') return error;
    const items = `${this.#items.toLocaleString('en')} item${this.#items === 1 ? '' : 's'}`;
    error.message = `the listing is incomplete: it stopped after ${items}, when the next page failed: ${error.message}`;
    return error;
  }
}

/**
 * `key` as one run of characters, as CursorTrail keeps it for a whole listing. A key made of
 * pieces (a grant's user, role and audit entry: itemKey) is a rope over them until its characters
 * are read; reading one makes V8 copy it into one string and let the pieces go. Measured over
 * 100,000 grants: 26 MB kept as ropes, 11 MB so (test/unit/http-paging-repeats.test.ts).
 */
function flat(key: string): string {
  key.charCodeAt(0);
  return key;
}

/** What is shown of a cursor or an item's key in an error line: cut past SHOWN_CURSOR. */
function shownCut(text: string): string {
  return text.length > SHOWN_CURSOR ? `${text.slice(0, SHOWN_CURSOR)}${sym.ellipsis}` : text;
}

/**
 * How many more pages made only of items read before than pages that held an item not read
 * before stop a listing (CursorTrail.read), counted over the whole listing: a server whose pages
 * go round (A, B, A, B…) under cursors or links that differ every time (a timestamp in them)
 * passes the check of a cursor sent again and of a page repeating the page before, and was read
 * for ever, printing nothing (review23a F7). A busy newest-first list read by offset gives such
 * pages while it gains more than a page of items between two of svc's reads, and a long listing
 * bears its bursts (closing note of session 23: 20 in a row stopped a long listing whose list
 * would have calmed). Counted in all, not in a row (review24a M2: a bound of as many pages in a
 * row as had new items let a server going round over a list gaining an item a round be read for
 * ever, and bursts cost their square): the requests of a listing are at most twice those that
 * brought new items, and 20 more. A server going round P pages whose rounds each bring one page
 * with new items (the list gains during a round) stops within (P + 20) / (P - 2) rounds after its
 * first when P > 2; at P = 2, or a round with as many pages with new items as of repeats, it
 * goes on while the list gains, at two requests a page with new items, as a list that grows
 * under its reads does.
 */
export const REPEATED_PAGES_MAX = 20;

/**
 * Empty pages in a row, each under a new cursor, that stop a listing (CursorTrail.read). Not
 * repeats: a server filtering a long list sparsely may send many empty pages between its items,
 * so the bound is 50 times REPEATED_PAGES_MAX: at pages of 100 items (the platform allows 50 to 200) it is
 * 100,000 items passed over without one match, as many as SEEN_MAX, and at 50–200 ms a request
 * one to three minutes of nothing, long past a sparse filter's gap and still an end for an
 * unattended run (no other paging bound has an environment override: none here either).
 */
export const EMPTY_PAGES_MAX = 1_000;

function emptyPages(run: number, items: number): SvcError {
  const before = `${items.toLocaleString('en')} item${items === 1 ? '' : 's'}`;
  return new SvcError(
    'failure',
    `the server sent ${run.toLocaleString('en')} empty pages in a row, each with a new cursor, after ${before}; svc stopped rather than read empty pages for ever, so the listing is incomplete: it holds only the ${before} before them`,
    { code: 'paging_empty', hint: AGAIN },
  );
}

function onlyRepeats(repeats: number, pages: number): SvcError {
  return new SvcError(
    'failure',
    `${repeats.toLocaleString('en')} of the ${pages.toLocaleString('en')} pages svc read held only items it had read already, ${REPEATED_PAGES_MAX} more than held new ones (the list grew faster than svc read it, or the server's pages go round under ever-changing cursors or links); svc stopped, so the listing is incomplete`,
    { code: 'paging_moved', hint: AGAIN },
  );
}

/** The hint of a page that repeats others where a list that changed meanwhile would too. */
const AGAIN =
  "run the command again from the start (without --cursor); if it repeats on every run while the list is not changing, the server's paging is broken: report it to its operator";

/**
 * A page repeating the whole page before it (CursorTrail.read), `first` that page's first key: a
 * page asked by position whose server counts otherwise or ignores the position (or whose list
 * gained a whole page meanwhile: run it again), or a page of a cursor whose server ignores it.
 */
function wholeRepeat(own: OwnPage | undefined, asked: string, first: string): SvcError {
  const shown = shownCut(first);
  if (own?.way === 'page' || own?.way === 'offset') {
    const [where, what] =
      own.way === 'page'
        ? [
            `page ${own.page} of the listing, as svc counted the pages (from ${own.base}, as the first page said),`,
            'its pages otherwise than its first page said',
          ]
        : [`the page at offset ${own.offset} of the listing`, 'its offsets otherwise'];
    return new SvcError(
      'failure',
      `${where} repeats the whole page before it (${shown}): the server counts ${what}, or ignores the ${own.way === 'page' ? 'page number' : 'offset'} asked for, so the page after it would never be read (or the list gained a whole page of items while svc read it); svc stopped, so the listing is incomplete`,
      {
        code: 'paging_moved',
        hint: AGAIN,
      },
    );
  }
  // A link names a position as a rule (?offset=, ?page=): a list that gained a page meanwhile
  // repeats the page as an offset page does, so it is said as that is (review23a F6).
  if (own?.way === 'link')
    return new SvcError(
      'failure',
      `the page at the server's next link ${JSON.stringify(shownCut(own.path))} repeats the whole page before it (${shown}): the list gained a whole page of items while svc read it (a link names a position: an offset, a page number), or the server links back to a page already read, so the page after it would never be read; svc stopped, so the listing is incomplete`,
      { code: 'paging_moved', hint: AGAIN },
    );
  const [where, what] =
    own?.way === 'starting_after'
      ? [`the page after ${shownCut(own.id)} (starting_after)`, 'starting_after']
      : [
          `the page at the server's cursor ${JSON.stringify(shownCut(own?.way === 'cursor' ? own.cursor : asked))}`,
          'the cursor asked for',
        ];
  return new SvcError(
    'failure',
    `${where} repeats the whole page before it (${shown}): the server ignores ${what}, which names the place after that page, so the page after it would never be read; svc stopped, so the listing is incomplete`,
    { code: 'cursor_loop', hint: "the server's paging is broken: report it to its operator" },
  );
}

/**
 * Where the next page is, on a server that pages otherwise than with `next_cursor`: an offset
 * (`next_offset`), the last item's id (`has_more: true` alone, as Stripe pages: `starting_after`),
 * a page number (`page` of `per_page` items), or a link (a `Link: <…>; rel="next"` header, or a
 * `next` / `links.next` / `_links.next` field). svc carries it as a cursor of its own
 * (`svc-page:offset=50`), so the list verbs, their `--cursor` and the cursor-loop check treat every
 * shape alike; ApiClient.request turns it back into the request that shape asks for (`followPage`).
 * A numbered page keeps the size it was counted in (`svc-page:page=3&per_page=20`: page 3 of
 * another size is other items; `&base=0` when the pages are counted from 0), and a link is
 * followed as the server wrote it. Such a page may hold more than a listing's --limit lets it
 * print: the listing's cursor is then the same page with `#skip=N`, the N items of it already
 * printed (review19 F5); a first page, or one of the server's own cursor, is carried in one of
 * svc's (`svc-page:cursor=#skip=N`, `svc-page:cursor=c2#skip=N`: that page asked again). Items of
 * the page after those N that the listing left out as repeats of the items it printed before
 * follow as `&printed=K1,K2` (their keys, item-key.ts, each URI-encoded): the next command has no
 * page before to compare them with (brief paging23 2).
 */
const SVC_PAGE = 'svc-page:';
// `&last=K`: the row printed last before a server's cursor (cursorNaming), a field of its own:
// `&printed=` names rows left out as printed wherever they are, never a position (review29b M2).
const SKIP = /#skip=(\d+)(?:&printed=([^#&]*))?(?:&last=([^#&]*))?$/;
const NOT_UNDERSTOOD = "the server's paging is not one svc understands: report it to its operator";

/**
 * The page a cursor of svc's own names, or undefined for any other cursor (sent as it is).
 * `skip`: how many of its first items were printed; `printed`: the keys of items after those that
 * were printed too (CursorTrail.read leaves them out).
 */
type OwnPage = { skip: number; printed?: ReadonlySet<string>; last?: string } & (
  | { way: 'link'; path: string }
  | { way: 'offset'; offset: number }
  | { way: 'starting_after'; id: string }
  // `short`: how many fewer items the pages before held than full pages of `size` (fix-list21 3b).
  | { way: 'page'; page: number; size: number; base: number; short: number }
  // A page of a cursor not svc's own (the server's; none: the first page), some of it printed.
  | { way: 'cursor'; cursor: string }
);

function ownPage(cursor: unknown): OwnPage | undefined {
  if (typeof cursor !== 'string' || !cursor.startsWith(SVC_PAGE)) return undefined;
  const body = cursor.slice(SVC_PAGE.length).replace(SKIP, '');
  const cut = SKIP.exec(cursor);
  let printed: ReadonlySet<string> | undefined;
  let last: string | undefined;
  try {
    if (cut?.[2]) printed = new Set(cut[2].split(',').map(decodeURIComponent));
    if (cut?.[3]) last = decodeURIComponent(cut[3]);
  } catch {
    return undefined;
  }
  const skip = {
    skip: Number(cut?.[1] ?? 0),
    ...(printed ? { printed } : {}),
    ...(last === undefined ? {} : { last }),
  };
  const at = body.indexOf('=');
  if (at < 1) return undefined;
  const [way, value] = [body.slice(0, at), body.slice(at + 1)];
  if (way === 'starting_after') return { way, id: value, ...skip };
  if (way === 'offset') return /^\d+$/.test(value) ? { way, offset: Number(value), ...skip } : undefined;
  if (way === 'cursor') return { way, cursor: value, ...skip };
  if (way === 'page') {
    const numbered = /^(\d+)&per_page=([1-9]\d*)(&base=0)?(?:&short=(\d+))?$/.exec(value);
    if (!numbered) return undefined;
    const page = Number(numbered[1]);
    const [size, short] = [Number(numbered[2]), Number(numbered[4] ?? 0)];
    return { way, page, size, base: numbered[3] || page === 0 ? 0 : 1, short, ...skip };
  }
  // Only a path is followed: a cursor svc did not make (a server's next_cursor, a user's --cursor)
  // naming another host is sent as the opaque cursor it is, never as a URL the credential goes to;
  // and only a path as svc writes one (apiPathOf): dot segments (`/../x`, `%2e%2e`) would climb
  // out of the base URL's path, where the credential does not go (review18b R5).
  if (way !== 'link' || !/^\/(?![/\\])/.test(value)) return undefined;
  if (new URL(value, 'http://svc.invalid').pathname !== value.split('?')[0]) return undefined;
  return { way, path: value, ...skip };
}

/**
 * Whether `cursor` is one a listing of a list the API gives whole (one answer, no cursor of its
 * own) hands on: svc's own, the first page asked again with the rows printed skipped
 * (`svc-page:cursor=#skip=N`).
 */
export function isWholeListCursor(cursor: string): boolean {
  const own = ownPage(cursor);
  return own?.way === 'cursor' && own.cursor === '' && own.skip > 0;
}

/** Whether `cursor` is one of svc's own (`svc-page:…`), which a listing of a list the API may give whole prints. */
export function isOwnCursor(cursor: string): boolean {
  return ownPage(cursor) !== undefined;
}

/** How many items of the page `cursor` names were printed before (its `#skip=N`); 0 for any other. */
export function skipOf(cursor: unknown): number {
  return ownPage(cursor)?.skip ?? 0;
}

/**
 * The cursor that continues after the first `printed` items of the page `cursor` asked for (those
 * it skipped included). A cursor not svc's own (none: the first page; a server's) is carried in one
 * that is (`svc-page:cursor=c2#skip=3`, `svc-page:cursor=#skip=3`): the same page asked again, the
 * items printed skipped, so --limit N prints N even from a page larger than it asked for.
 * `ahead`: the items of the page after those that the listing left out as printed before
 * (CursorTrail.read), named by their keys (`&printed=`), so the next command leaves them out too
 * (brief paging23 2: it printed them again).
 */
export function cursorWithin(
  cursor: string | undefined,
  printed: number,
  ahead: readonly unknown[] = [],
  unmet: readonly string[] = [],
): string {
  const carried = printedPart(ahead, unmet);
  const own = ownPage(cursor);
  if (own === undefined) return `${SVC_PAGE}cursor=${cursor ?? ''}#skip=${printed}${carried}`;
  return `${(cursor as string).replace(SKIP, '')}#skip=${own.skip + printed}${carried}`;
}

/**
 * `&printed=K1,K2`: `before` (keys a start cursor named that the listing did not meet:
 * CursorTrail.unmet) and the keys (item-key.ts) of `items`, each URI-encoded, once; '' for none.
 */
function printedPart(items: readonly unknown[], before: readonly string[] = []): string {
  const keys = new Set<string>(before.map(encodeURIComponent));
  for (const item of items) {
    const key = itemKey(item);
    if (key !== undefined) keys.add(encodeURIComponent(key));
  }
  return keys.size > 0 ? `&printed=${[...keys].join(',')}` : '';
}

/**
 * How many of the items a listing printed last the cursor of a `--limit` reached exactly at a
 * page's end carries (cursorAfter): a list gaining up to this many items ahead of the position
 * between the two commands prints none of them again; one gaining more prints the excess again
 * (the cursor is a shell word a person copies: it does not grow with the page).
 */
export const PRINTED_LAST = 10;

/**
 * The cursor a listing whose `--limit` was reached exactly at a page's end hands on: the server's
 * next cursor `next`, and, when that names the next page by position (svc's own offset, page
 * number or link), the keys of `last`, the items printed last (at most PRINTED_LAST), as
 * `#skip=0&printed=`: the next command has no page before to compare with, and an offset list
 * that gained an item at its head between the two commands starts that page with the item printed
 * last (closing note of session 23: it was printed again). Before them, within PRINTED_LAST in
 * all, `unmet`: the keys the listing's own start cursor named that no page it read held
 * (CursorTrail.unmet), printed by a command before and still ahead (review24a M1: dropped). A
 * cursor of the server's own (its position is its own: the platform's is keyset) or of an id
 * (`starting_after`) is handed as it is.
 */
export function cursorAfter(next: string, last: readonly unknown[], unmet: readonly string[] = []): string {
  const own = ownPage(next);
  if (own === undefined || own.skip > 0 || own.printed !== undefined) return next;
  if (own.way !== 'offset' && own.way !== 'page' && own.way !== 'link') return next;
  const items = last.slice(-PRINTED_LAST);
  const carried = printedPart(items, unmet.slice(Math.max(0, unmet.length - (PRINTED_LAST - items.length))));
  return carried === '' ? next : `${next}#skip=0${carried}`;
}

/**
 * A paging field as a server wrote it: absent or null, nothing said (undefined, "no more" where
 * nothing else says more); else `read`'s value of it. The one rule for every paging field svc
 * reads (has_more, next_cursor, next_offset, total, page, per_page, total_pages, a next link):
 * a value present that `read` cannot take (undefined) is refused, naming the field and its value
 * (cut as quoted cuts it), never read as absent. Read as absent, `next_offset: "abc"` or
 * `total: " 5"` ended the listing after its first page, exit 0 (mutpag, session 29), as a
 * `has_more: "true"` once did (review19 F1).
 */
function fieldOf<T>(
  value: unknown,
  field: string,
  what: string,
  read: (value: unknown) => T | undefined,
  wanted: string,
): T | undefined {
  if (value === undefined || value === null) return undefined;
  const taken = read(value);
  if (taken !== undefined) return taken;
  throw noWay(`the server's answer to ${what} says ${field}: ${quoted(value)}, which is ${wanted}`);
}

/** A count as servers write it: a whole JSON number, or its digits as text ("39": proto3's int64). */
function whole(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return Number.isSafeInteger(number) && (number as number) >= 0 ? (number as number) : undefined;
}

/** A paging field that is a count (fieldOf): a whole number of 0 or more, or its digits as text. */
function countOf(page: Record<string, unknown>, field: string, what: string): number | undefined {
  return fieldOf(
    page[field],
    field,
    what,
    whole,
    'not a count (a whole number of 0 or more, or its digits as text)',
  );
}

/**
 * Spring Data REST's page object (`page: {number, totalPages, …}`): its two counts, each read by
 * countOf's rule (a count it cannot read is refused); undefined when `page` is not an object.
 */
function springPage(value: unknown, what: string): { number: number; totalPages: number } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const page = value as Record<string, unknown>;
  const number = countOf(page, 'number', what);
  const totalPages = countOf(page, 'totalPages', what);
  return number === undefined || totalPages === undefined ? undefined : { number, totalPages };
}

/**
 * `has_more` as a server wrote it: a boolean, or the word as text (numbers come as text too:
 * review19 F1); absent or null, nothing said. Any other value is refused (fieldOf): read as "no
 * more", a `"true"` ended the listing silently after its first page.
 */
function flagOf(value: unknown, what: string): boolean | undefined {
  const flag = (text: unknown) =>
    text === true || text === 'true' ? true : text === false || text === 'false' ? false : undefined;
  return fieldOf(value, 'has_more', what, flag, 'neither true nor false');
}

/** A page that says there is more and gives no way to it: the listing would be silently partial. */
function noWay(message: string): SvcError {
  return new SvcError('failure', `${message}; svc stopped, so the listing is incomplete`, {
    code: 'paging_unknown',
    hint: NOT_UNDERSTOOD,
  });
}

/** The page an answer is of: the path of the listing and the cursor it was asked with (none: the first). */
export interface AskedPage {
  path: string;
  cursor?: string | undefined;
}

/**
 * The cursor of the page after `data` (null: the last page), the answer to `asked`. A page that
 * says there is more (`has_more: true`, a `total` above the items, a page number without its
 * size) and gives no way to it throws: the listing would be silently partial.
 */
export function nextCursorOf(
  data: unknown,
  headers: Headers,
  baseUrl: string,
  what: string,
  given: AskedPage,
): string | null {
  // A page asked again to print the rest of it is the page its cursor asked (none: the first).
  const carried = ownPage(given.cursor);
  const asked = carried?.way === 'cursor' ? { path: given.path, cursor: carried.cursor || undefined } : given;
  const page =
    data !== null && typeof data === 'object' && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : {};
  const cursor = fieldOf(page.next_cursor, 'next_cursor', what, text, 'not a cursor (text)');
  if (cursor !== undefined && cursor !== '') return cursor;
  const hasMore = flagOf(page.has_more, what);
  if (hasMore === false) return null;
  const links =
    page.links !== null && typeof page.links === 'object' ? (page.links as Record<string, unknown>) : {};
  const hal =
    page._links !== null && typeof page._links === 'object' ? (page._links as Record<string, unknown>) : {};
  // A `next` as a string or as `{href}` (JSON:API's links, HAL's _links; review18b R8), read
  // against the URL of the page it came on (RFC 3986 §5; review19 F8).
  const link =
    linkNext(headers.link) ??
    linkOf(page.next, 'next', what) ??
    linkOf(links.next, 'links.next', what) ??
    linkOf(hal.next, '_links.next', what);
  if (link !== undefined) return `${SVC_PAGE}link=${apiPathOf(link, baseUrl, asked, what)}`;
  const items = Array.isArray(data) ? data : Array.isArray(page.items) ? page.items : page.data;
  const count = Array.isArray(items) ? items.length : 0;
  // An offset past the last item is the end (a server may name one on every page).
  const offset = countOf(page, 'next_offset', what);
  if (offset !== undefined && (hasMore === true || count > 0)) return `${SVC_PAGE}offset=${offset}`;
  const total = countOf(page, 'total', what);
  if (hasMore === undefined) {
    // Spring Data REST's `page` is an object ({size, totalElements, totalPages, number}), its way on
    // `_links.next` (read above): a page number it is not. Its last page ends the list; a page
    // before the last without that link has no way on (fieldOf's rule for its two counts).
    const spring = springPage(page.page, what);
    if (spring !== undefined && spring.number + 1 < spring.totalPages) {
      throw noWay(
        `the server's answer to ${what} is page ${(spring.number + 1).toLocaleString('en')} of ${spring.totalPages.toLocaleString('en')} (page.number, page.totalPages) but gives no way to the next (no _links.next)`,
      );
    }
    const at = spring === undefined ? countOf(page, 'page', what) : undefined;
    const own = ownPage(asked.cursor);
    if (at !== undefined) return nextNumbered(page, { at, count, total }, what, own);
    unnumbered(page, what, own, asked.cursor === undefined);
    // A count and no way to the rest (review19 F1). A later page's items are not the whole list,
    // and `next_cursor: null` is the reference's own word for the last page (a dead-letter
    // queue's `total` counts entries no page may show any more: the queue moves as it drains).
    if (total !== undefined && total > count && asked.cursor === undefined && !('next_cursor' in page)) {
      throw noWay(
        `the server's answer to ${what} counts ${total.toLocaleString('en')} items (total) but gives ${count.toLocaleString('en')} and no way to the others (no next_cursor, next_offset, page number, Link header or item id)`,
      );
    }
  }
  if (hasMore !== true) return null;
  const last = Array.isArray(items) ? (items.at(-1) as { id?: unknown } | undefined) : undefined;
  if (typeof last?.id === 'string' && last.id !== '') return `${SVC_PAGE}starting_after=${last.id}`;
  throw noWay(
    `the server's answer to ${what} says there are more items (has_more: true) but gives no way to them (no next_cursor, next_offset, Link header or item id)`,
  );
}

/**
 * A page without a page number, where one is needed to go on (fix-list21 3a): the first page
 * counting more pages (`total_pages`) than itself, or a page svc asked for by number (its own
 * cursor) not saying which page it is. Which page comes next depends on whether the server counts
 * from 0 or from 1, and svc knows that only from a first page saying `page: 0`; taken either way,
 * a page could be skipped or read twice. Throws; returns for any other page.
 */
function unnumbered(page: Record<string, unknown>, what: string, own: OwnPage | undefined, first: boolean) {
  const pages = countOf(page, 'total_pages', what);
  if (first && pages !== undefined && pages > 1 && !('next_cursor' in page)) {
    throw noWay(
      `the server's answer to ${what} counts ${pages.toLocaleString('en')} pages (total_pages) but does not say which page it is (page), so not which page comes next (a server counting its pages from 0 and one counting from 1 answer page=1 differently)`,
    );
  }
  if (own?.way === 'page') {
    throw noWay(
      `the server's answer to ${what}, asked for page ${own.page}, does not say which page it is (page), so not that it is the page after the ones read`,
    );
  }
}

/**
 * Numbered pages (page `at` of `per_page` items, and `total` items or `total_pages`): more while
 * the pages through this one hold fewer than the total. Pages are counted from 1, or from 0 when
 * the first page says `page: 0` (svc's cursor then says so: `&base=0`). A page number without its
 * size gives no way on. The next page is counted in the size this one says it is of; a page asked
 * by svc's own cursor (`asked`) must be the page and size asked for, else its items are not the
 * ones after the pages before (review19b F10: page 2 of 5 after page 1 of 7 repeats two): it
 * throws, before any item of it is printed, and so does an empty page of another size (page 3 of
 * 50, empty, after pages of 20). Page 0 starts at the first item in any size. A page that ends
 * the list while the pages before it and its items make fewer than its `total` (page 3 of 20
 * holding 5 of 60; an empty page short of the total) throws too: the rest is on no page svc can
 * ask for.
 *
 * A page short in its size while the count says more follow is read on by number, what it lacked
 * carried in svc's cursor (`&short=N`), so the page that ends the list is checked against the
 * `total` by the items the pages held, not by full pages (fix-list21 3b: page 2 one short, then
 * full pages to the end, was 20 of 21 printed, exit 0).
 *
 * With no count of the list (neither `total` nor `total_pages`), svc assumes a page not full, or
 * empty, in the size asked is the last: such a server says nothing else of its end, and a short
 * page in that size is what a list's end looks like under page numbers (a server that shrank its
 * size says another per_page, and is refused as moved; one that says the same size and gives
 * fewer items while more follow cannot be told from the end without a count).
 */
function nextNumbered(
  page: Record<string, unknown>,
  { at, count, total }: { at: number; count: number; total: number | undefined },
  what: string,
  asked: OwnPage | undefined,
): string | null {
  const size = countOf(page, 'per_page', what) || undefined;
  const pages = countOf(page, 'total_pages', what);
  const own = asked?.way === 'page' ? asked : undefined;
  const base = own ? own.base : at === 0 ? 0 : 1;
  const counts = { at, count, total, size, pages };
  if (own && lastOfAsked(own, counts)) return null;
  if (own && (at !== own.page || (size !== undefined && size !== own.size && at !== 0))) {
    throw moved(what, `is page ${at} of ${size ?? own.size} items a page`, own);
  }
  // The items of the pages before this one, as far as svc can tell: full pages, less the items
  // pages asked in that size held short of it (their cursor's `short`).
  const before = own ? (own.page - base) * own.size - own.short : (at - base) * (size ?? 0);
  if (count === 0 && (own || size !== undefined || at === base)) {
    if (emptyEnds(at - base, before, total, pages)) return null;
    throw short(what, at, count, before, total, pages);
  }
  if (size === undefined) {
    if ((total !== undefined && total <= count) || (pages !== undefined && pages <= 1)) return null;
    throw noWay(
      `the server's answer to ${what} is page ${at} of a numbered list but does not say its page size (per_page), so not where page ${at + 1} starts`,
    );
  }
  const through = at - base + 1;
  const more =
    total !== undefined ? through * size < total : pages !== undefined ? through < pages : count >= size;
  // A page short in its size while more follow (a server that drops items from a page, or a list
  // that changed): the pages after it are read on by number, as the server numbers them, and what
  // it lacked is carried on, so the last page's check against the total counts it (fix-list21 3b).
  const lacking = (own?.short ?? 0) + Math.max(0, size - count);
  if (more) {
    return `${SVC_PAGE}page=${at + 1}&per_page=${size}${base === 0 ? '&base=0' : ''}${lacking > 0 ? `&short=${lacking}` : ''}`;
  }
  if (total !== undefined && before + count < total) throw short(what, at, count, before, total, pages);
  return null;
}

/**
 * Whether an empty numbered page (`index` pages after the first, `before` items before it) ends
 * the list: its `total`, when given, is reached (the total is the count; total_pages then says
 * nothing more); without one, total_pages counts no page past those before it — or it is 1 on
 * the first page: many servers count an empty list as one empty page (max(1, ⌈total/size⌉), as
 * Laravel's last_page; review20 F2).
 */
function emptyEnds(
  index: number,
  before: number,
  total: number | undefined,
  pages: number | undefined,
): boolean {
  if (total !== undefined) return total <= before;
  return pages === undefined || pages <= index || (index === 0 && pages <= 1);
}

/** A numbered page other than the one asked: its items are not the ones after the pages before. */
function moved(what: string, answer: string, asked: { page: number; size: number }): SvcError {
  return new SvcError(
    'failure',
    `the server's answer to ${what} ${answer}, but svc asked for page ${asked.page} of ${asked.size} (the size the pages before it were counted in): its items are not the ones after those, so rows would be printed twice or left out; svc stopped, so the listing is incomplete`,
    {
      code: 'paging_moved',
      hint: "the server changed its page size while svc read the list: run the command again from the start (without --cursor), or report it to the server's operator",
    },
  );
}

/** The last page by its numbers, whose items and the pages before it make fewer than its count. */
function short(
  what: string,
  at: number,
  count: number,
  before: number,
  total: number | undefined,
  pages: number | undefined,
): SvcError {
  const n = (x: number) => x.toLocaleString('en');
  const of = (x: number, what: string) => `${n(x)} ${what}${x === 1 ? '' : 's'}`;
  const counted =
    total !== undefined
      ? `counts ${of(total, 'item')} (total)`
      : `counts ${of(pages ?? 0, 'page')} (total_pages)`;
  return new SvcError(
    'failure',
    `the server's answer to ${what} is page ${at} with ${of(count, 'item')} and no page after it, but ${counted}, and the pages up to it hold ${of(before + count, 'item')} at most: the others are on no page svc can ask for; svc stopped, so the listing is incomplete`,
    {
      code: 'paging_moved',
      hint: "the server's list changed while svc read it, or its paging is broken: run the command again from the start (without --cursor), or report it to the server's operator",
    },
  );
}

/**
 * The page asked, short, whose `per_page` is its own count (a server that says how many this page
 * holds), or empty, and which ends the list: the items of the pages before it in the size asked
 * and its own make the total, or it is the last of total_pages (empty: past it). That is the rest
 * of the list, not a page moved (review19d F8), 0-based too. What svc assumes: a server that
 * shrank its size to exactly the rest of the total on that very page (page 3 of 5 where page 3 of
 * 20 was asked, 45 items) answers the same numbers; only every item's id could tell the two apart,
 * which svc does not keep (a listing streams in constant memory), so such a page is read as the
 * rest. With total_pages alone the same holds; with no count of the list at all, a short page of
 * another per_page is refused (nothing says it ends the list).
 */
function lastOfAsked(
  asked: { page: number; size: number; base: number; short: number },
  p: {
    at: number;
    count: number;
    total?: number | undefined;
    size?: number | undefined;
    pages?: number | undefined;
  },
): boolean {
  if (p.at !== asked.page) return false;
  const before = (asked.page - asked.base) * asked.size - asked.short;
  if (p.count === 0) {
    // total_pages counts pages of the size the answer says: of the size asked, or no evidence.
    const pages = p.size === undefined || p.size === asked.size ? p.pages : undefined;
    return (
      (p.total !== undefined || pages !== undefined) &&
      emptyEnds(asked.page - asked.base, before, p.total, pages)
    );
  }
  if (p.size !== p.count || p.count >= asked.size) return false;
  return p.total !== undefined ? before + p.count === p.total : p.pages === asked.page - asked.base + 1;
}

/**
 * A request as the page a cursor of svc's own names asks for it; any other request as it is. A
 * link is asked as the server wrote it (its own page size kept), a numbered page in its size.
 */
export function followPage<R extends { path: string; query?: Record<string, unknown> | undefined }>(
  request: R,
): R {
  const own = ownPage(request.query?.cursor);
  if (own === undefined) return olderCursor(request);
  const { cursor: _, ...query } = request.query ?? {};
  if (own.way === 'cursor')
    return { ...request, query: own.cursor ? { ...query, cursor: own.cursor } : query };
  if (own.way === 'link') return { ...request, path: own.path, query: {} };
  if (own.way === 'offset') return { ...request, query: { ...query, offset: own.offset } };
  if (own.way === 'starting_after') return { ...request, query: { ...query, starting_after: own.id } };
  return { ...request, query: { ...query, page: own.page, limit: own.size } };
}

/**
 * A numbered-page cursor an svc before session 19 printed (`svc-page:page=3`, no size): the page
 * it names was counted in a size it does not say, so no request can ask for it; sent as an opaque
 * cursor, the server would answer its first page as if it were page 3. It is refused.
 */
function olderCursor<R extends { query?: Record<string, unknown> | undefined }>(request: R): R {
  const cursor = request.query?.cursor;
  if (typeof cursor !== 'string' || !/^svc-page:page=\d+(#skip=\d+)?$/.test(cursor)) return request;
  throw new UsageError(
    `the cursor ${JSON.stringify(cursor)} was printed by an older svc and does not say the page size its page was counted in, so svc cannot ask for that page`,
    {
      hint: 'run the listing again from the start (without --cursor) and continue from the cursor it prints',
    },
  );
}

/** Text as a paging field holds it (a cursor, a link); any other value, undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * A next page's link (`field`: next, links.next, _links.next) given as text or as an object with
 * its `href` (JSON:API, HAL); absent, null, empty or an object whose href is absent or null,
 * none. Any other value (a number, an href that is not text) is refused (fieldOf).
 */
function linkOf(value: unknown, field: string, what: string): string | undefined {
  const href = (link: unknown) => {
    if (link === null || typeof link !== 'object' || Array.isArray(link)) return text(link);
    const inner = (link as { href?: unknown }).href;
    return inner === undefined || inner === null ? '' : text(inner);
  };
  return nonEmptyText(fieldOf(value, field, what, href, 'not a link (a URL as text, or {"href": URL})'));
}

/** The URL of `rel="next"` in a Link header (RFC 8288), if any. */
function linkNext(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(', ') : header;
  if (!text) return undefined;
  for (const match of text.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]*)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '');
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('next')) return match[1];
  }
  return undefined;
}

/**
 * A next page's link, read against the URL of the page it came on (`?page=2` is that page's path
 * with another query), as a path under the base URL. A link to another origin (or outside the
 * base path) is not followed: svc's credential goes only to the server it was given.
 */
function apiPathOf(link: string, baseUrl: string, asked: AskedPage, what: string): string {
  const base = new URL(baseUrl);
  const query = asked.cursor === undefined ? {} : { cursor: asked.cursor };
  let url: URL;
  try {
    url = new URL(link, joinUrl(baseUrl, followPage({ path: asked.path, query }).path));
  } catch {
    url = new URL('invalid:');
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || !url.pathname.startsWith(`${prefix}/`)) {
    throw new SvcError(
      'failure',
      `the server's answer to ${what} names its next page at ${JSON.stringify(link)}, outside ${base.origin}${prefix}; svc sends its credential nowhere else, so the listing is incomplete`,
      { code: 'paging_unknown', hint: NOT_UNDERSTOOD },
    );
  }
  return `${url.pathname.slice(prefix.length)}${url.search}`;
}

/**
 * The server's cursor `next` in svc's own form, naming `last`, the item printed last before it
 * (`svc-page:cursor=c2#skip=0&last=K`: a field of its own, review29b M2), for a list the API may give whole (Listing): a server
 * that ignores the cursor answers with that item among the rows (brief fixlists 1), which no first
 * row compared can tell once the list's head changed. Without a key, the cursor as it was
 * (`svc-page:cursor=c2`). Written here, at the file's end, so no line above it moved.
 */
export function cursorNaming(next: string, last: unknown): string {
  const key = itemKey(last);
  return `${SVC_PAGE}cursor=${next}${key === undefined ? '' : `#skip=0&last=${encodeURIComponent(key)}`}`;
}

/** The row a cursor of cursorNaming's names as printed last before it (`&last=`); none for any other. */
export function lastOf(cursor: unknown): string | undefined {
  return ownPage(cursor)?.last;
}

/** The keys a cursor of svc's own names as printed before it (`&printed=`), in order; none for any other. */
export function printedOf(cursor: unknown): readonly string[] {
  return [...(ownPage(cursor)?.printed ?? [])];
}

/**
 * Whether `cursor` asks a page by its position (svc's own offset, page number or link), whose
 * items a list gaining items ahead of it shifts on between two commands: a listing cut within it
 * names the items it printed there (Listing; session 24's closing note: the next command printed
 * them again), as cursorAfter names those printed last before such a page.
 */
export function namesPosition(cursor: unknown): boolean {
  const way = ownPage(cursor)?.way;
  return way === 'offset' || way === 'page' || way === 'link';
}
