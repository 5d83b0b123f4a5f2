import { SvcError } from '../errors.js';
import { sym } from '../output/symbols.js';

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
  #pages = 0;
  #items = 0;

  /** `start`: the cursor the listing starts from (--cursor), if any. */
  constructor(start?: string) {
    if (start) this.#sent.add(start);
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
      const shown = next.length > SHOWN_CURSOR ? `${next.slice(0, SHOWN_CURSOR)}${sym.ellipsis}` : next;
      throw new SvcError(
        'failure',
        `the server sent the cursor ${JSON.stringify(shown)} again after ${this.#pages.toLocaleString('en')} page${this.#pages === 1 ? '' : 's'} (a cursor loop); svc stopped rather than read the same pages forever, so the listing is incomplete`,
        { code: 'cursor_loop', hint: "the server's paging is broken: report it to its operator" },
      );
    }
    this.#sent.add(next);
    return next;
  }

  /**
   * A page's failure, as the listing reports it: after the first page, the message says the
   * listing is incomplete and how many items came before (the error's class, code and exit code
   * are kept). A Ctrl-C or a closed stdout says what it says.
   */
  failed(error: unknown): unknown {
    if (this.#pages === 0 || !(error instanceof SvcError)) return error;
    if (error.category === 'interrupted' || error.category === 'stdout_closed') return error;
    const items = `${this.#items.toLocaleString('en')} item${this.#items === 1 ? '' : 's'}`;
    error.message = `the listing is incomplete: it stopped after ${items}, when the next page failed: ${error.message}`;
    return error;
  }
}
