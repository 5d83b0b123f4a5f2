import type { Exchange, ReshapingProxy } from './reshaping-proxy.js';

/**
 * Another server's paging, played by the reshaping proxy over a test sandbox (attack18b #5,
 * review18b R8, review19 F1/F5/F8): each list of LISTS is asked whole upstream and served PAGE
 * items at a time in the shape named, the page size being the `limit` asked (at most PAGE), as a
 * server does within its own maximum.
 */
export const PAGED_LISTS = /^\/v1\/(users|tenants|role-assignments|users\/[^/]+\/roles)$/;
export const PAGE = 3;

export type PagedShape =
  | 'offset'
  // … the list gaining an item at its head after the first page (an item made meanwhile, newest
  // first): every later page at its offset starts with the last item of the page before (review21 F5)
  | 'offset-insert'
  // … PAGE items a page whatever the limit asked (a server that ignores it: a page larger than asked)
  | 'offset-insert-fixed'
  // … PAGE items a page whatever the limit, pages after the first seeing the list's second item a
  // second time, after its fifth (an item indexed again under a changed sort key before its old
  // entry went, a join listing a row twice): page 2 is [a3, a4, a1] (brief paging23 2)
  | 'offset-twice'
  // … PAGE items a page whatever the limit, the list's second item listed twice in a row on every
  // page, so the first page is [a0, a1, a1] (review23a F1: both copies after a --limit 1 cut)
  | 'offset-doubled'
  // the server's own cursor (opaque, an offset inside), PAGE items a page whatever the limit, over
  // the list of 'offset-insert': page 2 starts with the last item of page 1 (brief paging23 1)
  | 'cursor-insert'
  // … over the list of 'offset-twice': page 2 is [a3, a4, a1] (brief paging23 1, 2)
  | 'cursor-twice'
  | 'stripe'
  | 'link'
  | 'hal'
  | 'jsonapi'
  // numbered pages: page, per_page and total as JSON numbers
  | 'pages'
  // … as text (proto3's int64, many ORMs)
  | 'pages-text'
  // … with per_page saying the items on this page (a short last page says fewer: review19d F8)
  | 'pages-count'
  // … with total_pages in place of total
  | 'total-pages'
  // … with no count at all (a short or empty page is the last)
  | 'pages-no-count'
  // … a page number and a total, no page size
  | 'pages-no-size'
  // … PAGE items a page whatever the limit asked (a server that ignores it)
  | 'pages-fixed'
  // … counted from 0 (page 0 first), per_page saying the items on this page, with the total
  | 'pages-zero-count'
  // … page 3 answered empty in a size of 50, the total still counting every item
  | 'pages-empty-moved'
  // … page 1 of PAGE items, the later pages of PAGE - 1 whatever the limit (a server whose size
  // changes between calls, e.g. under load), each saying its per_page and the total
  | 'pages-shrink'
  // … counted from 1 in what is asked, but the first page (no page asked) saying `page: 0`: page=1
  // is the first page again (fix-list21 3a)
  | 'pages-said-zero'
  // … total_pages and per_page, but no page number on any page (fix-list21 3a)
  | 'pages-unnumbered'
  // … page 2 one item short in the size asked (the item on no page), the total counting it (fix-list21 3b)
  | 'pages-short-mid'
  // a total and nothing else
  | 'total-only'
  // HAL links to numbered pages of the size asked: /v1/users?page=2&limit=3
  | 'hal-pages'
  // JSON:API links relative to the page: {"href": "?offset=3"}, and a `next` as "users?offset=3"
  | 'relative-query'
  | 'relative-path'
  | 'link-elsewhere'
  | 'more-no-way'
  | 'ignores-starting-after';

export function pageAs(proxy: ReshapingProxy, shape: PagedShape): void {
  proxy.rewrite((method, path) => {
    const url = new URL(path, 'http://x');
    if (method !== 'GET' || !PAGED_LISTS.test(url.pathname)) return path;
    for (const name of ['cursor', 'offset', 'starting_after', 'page', 'limit']) url.searchParams.delete(name);
    // A user's assignments come whole (the sandbox takes no limit there).
    if (!url.pathname.endsWith('/roles')) url.searchParams.set('limit', '200');
    return `${url.pathname}${url.search}`;
  });
  proxy.reshape((x: Exchange) => {
    const url = new URL(x.path, 'http://x');
    if (x.method !== 'GET' || !PAGED_LISTS.test(url.pathname) || x.status !== 200) return;
    const page = x.body as { items: Array<{ id?: string }>; next_cursor?: unknown } & Record<string, unknown>;
    const all = page.items;
    const zero = shape === 'pages-zero-count';
    const pageNo = Number(url.searchParams.get('page') ?? (zero ? 0 : 1));
    const fixed = [
      'pages-fixed',
      'offset-insert-fixed',
      'offset-twice',
      'offset-doubled',
      'cursor-insert',
      'cursor-twice',
    ];
    const size =
      shape === 'pages-shrink' && pageNo > 1
        ? PAGE - 1
        : fixed.includes(shape)
          ? PAGE
          : Math.min(PAGE, Number(url.searchParams.get('limit') ?? PAGE));
    const after = url.searchParams.get('starting_after');
    let from = Number(url.searchParams.get('offset') ?? 0);
    // The server's cursor: an offset it does not show (base64url of `o:N`).
    const opaque = shape === 'cursor-insert' || shape === 'cursor-twice';
    const cursor = url.searchParams.get('cursor');
    if (opaque && cursor !== null) from = Number(Buffer.from(cursor, 'base64url').toString().slice(2));
    const numbered = [
      'pages',
      'pages-said-zero',
      'pages-unnumbered',
      'pages-short-mid',
      'pages-shrink',
      'pages-fixed',
      'pages-empty-moved',
      'pages-count',
      'pages-text',
      'total-pages',
      'pages-no-count',
      'pages-no-size',
      'hal-pages',
    ];
    if (numbered.includes(shape)) from = (pageNo - 1) * size;
    if (zero) from = pageNo * size;
    if (after !== null && shape !== 'ignores-starting-after') from = all.findIndex((i) => i.id === after) + 1;
    // Pages after the first see the list with an item at its head: a copy of the first, another id.
    const inserting =
      shape === 'offset-insert' || shape === 'offset-insert-fixed' || shape === 'cursor-insert';
    if (inserting && from > 0) all.unshift({ ...all[0], id: 'usr_0_new' });
    if ((shape === 'offset-twice' || shape === 'cursor-twice') && from > 0) all.splice(5, 0, all[1]!);
    if (shape === 'offset-doubled') all.splice(2, 0, all[1]!);
    page.items = all.slice(from, from + size);
    if (shape === 'pages-short-mid' && pageNo === 2) page.items = page.items.slice(1);
    delete page.next_cursor;
    const more = from + size < all.length;
    if (opaque && more) page.next_cursor = Buffer.from(`o:${from + size}`).toString('base64url');
    if (
      (shape === 'offset' || inserting || shape === 'offset-twice' || shape === 'offset-doubled') &&
      !opaque
    ) {
      Object.assign(page, { has_more: more, next_offset: from + size });
    }
    if (shape === 'stripe' || shape === 'ignores-starting-after') page.has_more = more;
    if (more && shape === 'link') {
      url.searchParams.set('offset', String(from + size));
      url.searchParams.delete('page');
      x.headers.link = `<${proxy.url}${url.pathname}${url.search}>; rel="next", <${proxy.url}${url.pathname}>; rel="first"`;
    }
    const next = `${proxy.url}${url.pathname}?offset=${from + size}`;
    if (more && shape === 'hal') page._links = { self: { href: x.path }, next: { href: next } };
    if (more && shape === 'jsonapi') page.links = { next: { href: next } };
    if (more && shape === 'hal-pages') {
      page._links = { next: { href: `${url.pathname}?page=${pageNo + 1}&limit=${size}` } };
    }
    if (more && shape === 'relative-query') page.links = { next: { href: `?offset=${from + size}` } };
    if (more && shape === 'relative-path')
      page.next = `${url.pathname.split('/').at(-1)}?offset=${from + size}`;
    const count = { page: pageNo, per_page: size, total: all.length };
    if (shape === 'pages' || shape === 'pages-shrink' || shape === 'pages-fixed') Object.assign(page, count);
    if (shape === 'pages-short-mid') Object.assign(page, count);
    if (shape === 'pages-said-zero') {
      Object.assign(page, { ...count, page: url.searchParams.has('page') ? pageNo : 0 });
    }
    if (shape === 'pages-unnumbered') {
      Object.assign(page, { per_page: size, total_pages: Math.ceil(all.length / size) });
    }
    if (zero) Object.assign(page, { ...count, per_page: page.items.length });
    if (shape === 'pages-empty-moved') {
      Object.assign(page, count, pageNo === 3 ? { per_page: 50, items: [] } : {});
    }
    if (shape === 'pages-count') Object.assign(page, { ...count, per_page: page.items.length });
    if (shape === 'pages-text') {
      Object.assign(page, { page: `${pageNo}`, per_page: `${size}`, total: `${all.length}` });
    }
    if (shape === 'total-pages') {
      Object.assign(page, { page: pageNo, per_page: size, total_pages: Math.ceil(all.length / size) });
    }
    if (shape === 'pages-no-count') Object.assign(page, { page: pageNo, per_page: size });
    if (shape === 'pages-no-size') Object.assign(page, { page: pageNo, total: all.length });
    if (shape === 'total-only') page.total = all.length;
    if (more && shape === 'link-elsewhere') x.headers.link = '<http://127.0.0.2:9/v1/users?page=1>; rel=next';
    // The first page gives an offset; the second, empty, says there is more and not where.
    if (shape === 'more-no-way') {
      if (from > 0) page.items = [];
      Object.assign(page, { has_more: true }, from === 0 ? { next_offset: PAGE } : {});
    }
  });
}

/**
 * The tenant's roles as another server lists them: offset pages of three, pages after the first
 * seeing a role added at the list's head (a copy of the first, another id), so page 2 starts with
 * the last role of page 1 (brief paging22 2, paging23 3).
 */
export function rolesGainingOne(proxy: ReshapingProxy): void {
  proxy.rewrite((method, path) =>
    method === 'GET' && path.startsWith('/v1/roles?') ? '/v1/roles?limit=200' : path,
  );
  proxy.reshape((x: Exchange) => {
    const url = new URL(x.path, 'http://x');
    if (x.method !== 'GET' || url.pathname !== '/v1/roles' || x.status !== 200) return;
    const all = (x.body as { items: Array<{ id: string }> }).items;
    const from = Number(url.searchParams.get('offset') ?? 0);
    if (from > 0) all.unshift({ ...all[0]!, id: 'role_new' });
    x.body = { items: all.slice(from, from + 3), has_more: from + 3 < all.length, next_offset: from + 3 };
  });
}
