import { SvcError } from '../errors.js';
import { sym } from '../output/symbols.js';
import { nonEmptyText } from './errors.js';
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

/**
 * Where the next page is, on a server that pages otherwise than with `next_cursor`: an offset
 * (`next_offset`), the last item's id (`has_more: true` alone, as Stripe pages: `starting_after`),
 * or a link (a `Link: <…>; rel="next"` header, or a `next` / `links.next` field). svc carries it
 * as a cursor of its own (`svc-page:offset=50`), so the list verbs, their `--cursor` and the
 * cursor-loop check treat every shape alike; ApiClient.request turns it back into the request
 * that shape asks for (`followPage`).
 */
const SVC_PAGE = 'svc-page:';
type PageWay = 'offset' | 'starting_after' | 'link' | 'page';

/**
 * The cursor of the page after `data` (null: the last page). A page that says there is more
 * (`has_more: true`) and gives no way to it throws: the listing would be silently partial.
 */
export function nextCursorOf(data: unknown, headers: Headers, baseUrl: string, what: string): string | null {
  const page =
    data !== null && typeof data === 'object' && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : {};
  if (typeof page.next_cursor === 'string' && page.next_cursor !== '') return page.next_cursor;
  if (page.has_more === false) return null;
  const links =
    page.links !== null && typeof page.links === 'object' ? (page.links as Record<string, unknown>) : {};
  const hal =
    page._links !== null && typeof page._links === 'object' ? (page._links as Record<string, unknown>) : {};
  // A `next` as a string or as `{href}` (JSON:API's links, HAL's _links; review18b R8).
  const link = linkNext(headers.link) ?? hrefOf(page.next) ?? hrefOf(links.next) ?? hrefOf(hal.next);
  if (link !== undefined) return `${SVC_PAGE}link=${apiPathOf(link, baseUrl, what)}`;
  const items = Array.isArray(data) ? data : Array.isArray(page.items) ? page.items : page.data;
  // An offset past the last item is the end (a server may name one on every page).
  if (
    Number.isSafeInteger(page.next_offset) &&
    (page.has_more === true || (Array.isArray(items) && items.length > 0))
  )
    return `${SVC_PAGE}offset=${page.next_offset}`;
  // Numbered pages (`page`, `per_page`, `total`): more while the pages so far hold fewer than total.
  if ([page.page, page.per_page, page.total].every(Number.isSafeInteger) && page.has_more === undefined) {
    const [at, size, total] = [page.page as number, page.per_page as number, page.total as number];
    return at * size < total && Array.isArray(items) && items.length > 0 ? `${SVC_PAGE}page=${at + 1}` : null;
  }
  if (page.has_more !== true) return null;
  const last = Array.isArray(items) ? (items.at(-1) as { id?: unknown } | undefined) : undefined;
  if (typeof last?.id === 'string' && last.id !== '') return `${SVC_PAGE}starting_after=${last.id}`;
  throw new SvcError(
    'failure',
    `the server's answer to ${what} says there are more items (has_more: true) but gives no way to them (no next_cursor, next_offset, Link header or item id); svc stopped, so the listing is incomplete`,
    {
      code: 'paging_unknown',
      hint: "the server's paging is not one svc understands: report it to its operator",
    },
  );
}

/** A request as the page a cursor of svc's own names asks for it; any other request as it is. */
export function followPage<R extends { path: string; query?: Record<string, unknown> | undefined }>(
  request: R,
): R {
  const cursor = request.query?.cursor;
  if (typeof cursor !== 'string' || !cursor.startsWith(SVC_PAGE)) return request;
  const [way, value] = splitWay(cursor.slice(SVC_PAGE.length));
  const { cursor: _, ...query } = request.query ?? {};
  // The link carries the server's parameters; the page size asked (a listing's last page ends
  // exactly at --limit, so its cursor continues there) replaces the link's.
  // Only a path is followed: a cursor svc did not make (a server's next_cursor, a user's --cursor)
  // naming another host is sent as the opaque cursor it is, never as a URL the credential goes to.
  if (way === 'link') {
    if (!/^\/(?![/\\])/.test(value)) return request;
    // Only a path as svc writes one (apiPathOf): dot segments (`/../x`, `%2e%2e`) would climb out of
    // the base URL's path, where the credential does not go (review18b R5).
    if (new URL(value, 'http://svc.invalid').pathname !== value.split('?')[0]) return request;
    return { ...request, path: value, query: query.limit === undefined ? {} : { limit: query.limit } };
  }
  if (way === 'offset') return { ...request, query: { ...query, offset: Number(value) } };
  if (way === 'starting_after') return { ...request, query: { ...query, starting_after: value } };
  if (way === 'page') return { ...request, query: { ...query, page: Number(value) } };
  return request;
}

function splitWay(text: string): [PageWay | undefined, string] {
  const at = text.indexOf('=');
  const way = text.slice(0, at);
  return at > 0 && ['offset', 'starting_after', 'link', 'page'].includes(way)
    ? [way as PageWay, text.slice(at + 1)]
    : [undefined, text];
}

/** A link given as text or as an object with its `href` (JSON:API, HAL). */
function hrefOf(value: unknown): string | undefined {
  return value !== null && typeof value === 'object'
    ? nonEmptyText((value as { href?: unknown }).href)
    : nonEmptyText(value);
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
 * A next page's link as a path under the base URL. A link to another origin (or outside the base
 * path) is not followed: svc's credential goes only to the server it was given.
 */
function apiPathOf(link: string, baseUrl: string, what: string): string {
  const base = new URL(baseUrl);
  let url: URL;
  try {
    url = new URL(link, base);
  } catch {
    url = new URL('invalid:');
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || !url.pathname.startsWith(`${prefix}/`)) {
    throw new SvcError(
      'failure',
      `the server's answer to ${what} names its next page at ${JSON.stringify(link)}, outside ${base.origin}${prefix}; svc sends its credential nowhere else, so the listing is incomplete`,
      {
        code: 'paging_unknown',
        hint: "the server's paging is not one svc understands: report it to its operator",
      },
    );
  }
  return `${url.pathname.slice(prefix.length)}${url.search}`;
}
