// Over 300 lines: tables of exact inputs and outputs, one block per function of src/http/paging.ts,
// so the whole paging contract (every shape another server pages with) reads in one file.
// Other servers' paging (src/http/paging.ts), in-process: the cursor a listing starts from, the
// cursor-loop check and its words, the cursor of the next page for each shape a server may page
// with, the request svc's own `svc-page:` cursors turn back into, and the rule that a next page's
// link is followed only under the base URL (where the credential goes).
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/errors.js';
import { CursorTrail, followPage, nextCursorOf, startCursor } from '../../src/http/paging.js';
import type { Headers } from '../../src/http/send.js';

const BASE = 'https://api.example.test/base';
const WHAT = 'GET /items';

/** The cursor of the next page of `data` (headers: `link`), against BASE. */
function next(data: unknown, link?: string | string[]): string | null {
  const headers: Headers = link === undefined ? {} : { link };
  return nextCursorOf(data, headers, BASE, WHAT);
}

/** The SvcError `fn` throws. */
function thrown(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('startCursor', () => {
  it.each([
    ['a cursor field', '/v1/t', { cursor: 'c1' }, 'c1'],
    ['the field over the one in the path', '/v1/t?cursor=p', { cursor: 'c1' }, 'c1'],
    ['a cursor in the path', '/v1/t?limit=2&cursor=abc', {}, 'abc'],
    ['a cursor first in the path', '/v1/t?cursor=abc&limit=2', {}, 'abc'],
    ['a field that is not a string: the path', '/v1/t?cursor=abc', { cursor: 5 }, 'abc'],
    ['no cursor in the path', '/v1/t?limit=2', {}, undefined],
    ['no query at all', '/v1/t', {}, undefined],
  ])('%s', (_, path, query, expected) => {
    expect(startCursor(path, query)).toBe(expected);
  });
});

describe('CursorTrail', () => {
  it('gives each new cursor and undefined at the end (no cursor, an empty one, not a string)', () => {
    const trail = new CursorTrail();
    expect(trail.next(2, 'c1')).toBe('c1');
    expect(trail.next(2, 'c2')).toBe('c2');
    expect(trail.next(2, '')).toBeUndefined();
    expect(trail.next(2, undefined)).toBeUndefined();
    expect(trail.next(2, null)).toBeUndefined();
    expect(trail.next(2, 7)).toBeUndefined();
  });

  it('stops a loop c1 → c2 → c1 with one line naming the loop and the pages read', () => {
    const trail = new CursorTrail();
    trail.next(2, 'c1');
    trail.next(2, 'c2');
    const error = thrown(() => trail.next(2, 'c1'));
    expect(error.message).toBe(
      'the server sent the cursor "c1" again after 3 pages (a cursor loop); svc stopped rather than read the same pages forever, so the listing is incomplete',
    );
    expect(error.category).toBe('failure');
    expect(error.exitCode).toBe(1);
    expect(error.code).toBe('cursor_loop');
    expect(error.hint).toBe("the server's paging is broken: report it to its operator");
  });

  it('counts the cursor the listing started from (--cursor) as sent: one page, singular', () => {
    const trail = new CursorTrail('c0');
    expect(thrown(() => trail.next(1, 'c0')).message).toBe(
      'the server sent the cursor "c0" again after 1 page (a cursor loop); svc stopped rather than read the same pages forever, so the listing is incomplete',
    );
  });

  it('a start with no cursor remembers none', () => {
    expect(new CursorTrail('').next(1, 'c0')).toBe('c0');
    expect(new CursorTrail().next(1, 'c0')).toBe('c0');
  });

  it('writes a page count in thousands with a comma', () => {
    const trail = new CursorTrail();
    for (let page = 1; page < 1234; page++) trail.next(1, `c${page}`);
    expect(thrown(() => trail.next(1, 'c1')).message).toContain('again after 1,234 pages (a cursor loop)');
  });

  it('shows a cursor of 60 characters whole and a longer one cut at 60 with an ellipsis', () => {
    const sixty = 'a'.repeat(60);
    const atSixty = new CursorTrail(sixty);
    expect(thrown(() => atSixty.next(1, sixty)).message).toContain(`the cursor "${sixty}" again`);
    const long = `${'b'.repeat(60)}cdef`;
    const atLong = new CursorTrail(long);
    expect(thrown(() => atLong.next(1, long)).message).toContain(`the cursor "${'b'.repeat(60)}…" again`);
  });

  it('svc-page cursors of other shapes loop like any other', () => {
    const trail = new CursorTrail();
    trail.next(2, 'svc-page:offset=2');
    expect(thrown(() => trail.next(2, 'svc-page:offset=2')).code).toBe('cursor_loop');
  });
});

describe('CursorTrail.failed', () => {
  it('leaves a failure of the first page as it is', () => {
    const error = new SvcError('failure', 'boom', { code: 'x' });
    expect(new CursorTrail().failed(error)).toBe(error);
    expect(error.message).toBe('boom');
  });

  it.each([
    [1, 'the listing is incomplete: it stopped after 1 item, when the next page failed: boom'],
    [2, 'the listing is incomplete: it stopped after 2 items, when the next page failed: boom'],
    [0, 'the listing is incomplete: it stopped after 0 items, when the next page failed: boom'],
    [1234, 'the listing is incomplete: it stopped after 1,234 items, when the next page failed: boom'],
  ])('after a page of %i items, says the listing is incomplete, keeping the error', (items, message) => {
    const trail = new CursorTrail();
    trail.next(items, 'c1');
    const error = new SvcError('not_found', 'boom', { code: 'gone', hint: 'h' });
    expect(trail.failed(error)).toBe(error);
    expect(error.message).toBe(message);
    expect([error.category, error.code, error.hint, error.exitCode]).toEqual(['not_found', 'gone', 'h', 5]);
  });

  it('counts the items of every page', () => {
    const trail = new CursorTrail();
    trail.next(2, 'c1');
    trail.next(3, 'c2');
    expect((trail.failed(new SvcError('failure', 'boom')) as Error).message).toContain('after 5 items,');
  });

  it.each(['interrupted', 'stdout_closed'] as const)('leaves %s as it is', (category) => {
    const trail = new CursorTrail();
    trail.next(2, 'c1');
    const error = new SvcError(category, 'stopped');
    expect(trail.failed(error)).toBe(error);
    expect(error.message).toBe('stopped');
  });

  it('leaves an error that is not svc’s as it is', () => {
    const trail = new CursorTrail();
    trail.next(2, 'c1');
    const error = new Error('raw');
    expect(trail.failed(error)).toBe(error);
    expect(error.message).toBe('raw');
  });
});

describe('nextCursorOf', () => {
  const a = { id: 'a' };
  const b = { id: 'b' };
  it.each([
    // next_cursor
    ['next_cursor', { next_cursor: 'c2', data: [a] }, 'c2'],
    ['next_cursor over has_more: false', { next_cursor: 'c2', has_more: false }, 'c2'],
    ['an empty next_cursor is none', { next_cursor: '' }, null],
    [
      'an empty next_cursor with has_more: true and items',
      { next_cursor: '', has_more: true, data: [a] },
      'svc-page:starting_after=a',
    ],
    [
      'has_more: false is the end, whatever else the page names',
      { has_more: false, next: '/base/p2', next_offset: 4, data: [a] },
      null,
    ],
    // not an object
    ['null', null, null],
    ['a bare array', [a, b], null],
    ['a string', 'text', null],
    ['an empty object', {}, null],
    // links, as text or {href}
    ['next as a path', { next: '/base/items?page=2' }, 'svc-page:link=/items?page=2'],
    ['next as a URL', { next: `${BASE}/items?c=2` }, 'svc-page:link=/items?c=2'],
    ['next as {href}', { next: { href: '/base/items?c=2' } }, 'svc-page:link=/items?c=2'],
    ['links.next (JSON:API)', { links: { next: '/base/items?c=3' } }, 'svc-page:link=/items?c=3'],
    ['links.next as {href}', { links: { next: { href: '/base/items?c=3' } } }, 'svc-page:link=/items?c=3'],
    [
      '_links.next as {href} (HAL)',
      { _links: { next: { href: '/base/items?c=4' } } },
      'svc-page:link=/items?c=4',
    ],
    ['_links.next as text', { _links: { next: '/base/items?c=4' } }, 'svc-page:link=/items?c=4'],
    ['next before links.next', { next: '/base/n1', links: { next: '/base/n2' } }, 'svc-page:link=/n1'],
    [
      'links.next before _links.next',
      { links: { next: '/base/n2' }, _links: { next: '/base/n3' } },
      'svc-page:link=/n2',
    ],
    ['a null next, links and _links are none', { next: null, links: null, _links: null }, null],
    ['an empty next is none', { next: '' }, null],
    ['an empty href is none', { next: { href: '' } }, null],
    ['an href that is not a string is none', { next: { href: 5 } }, null],
    ['a next that is a number is none', { next: 5 }, null],
    ['a link before an offset', { next: '/base/p2', next_offset: 4, data: [a] }, 'svc-page:link=/p2'],
    // offsets
    ['next_offset with items', { next_offset: 50, data: [a] }, 'svc-page:offset=50'],
    ['next_offset with items under items', { next_offset: 2, items: [a] }, 'svc-page:offset=2'],
    ['next_offset after an empty page is the end', { next_offset: 50, data: [] }, null],
    ['next_offset and no items is the end', { next_offset: 50 }, null],
    [
      'next_offset with has_more: true, even after an empty page',
      { next_offset: 50, has_more: true, data: [] },
      'svc-page:offset=50',
    ],
    ['next_offset 0', { next_offset: 0, data: [a] }, 'svc-page:offset=0'],
    ['a next_offset that is text is none', { next_offset: '50', data: [a] }, null],
    ['a next_offset that is not whole is none', { next_offset: 1.5, data: [a] }, null],
    // numbered pages
    ['page 1 of 3', { page: 1, per_page: 2, total: 5, data: [a, b] }, 'svc-page:page=2'],
    ['the last page, not full', { page: 3, per_page: 2, total: 5, data: [a] }, null],
    ['the last page, exactly full', { page: 2, per_page: 2, total: 4, data: [a, b] }, null],
    ['one short of the total', { page: 2, per_page: 2, total: 5, data: [a, b] }, 'svc-page:page=3'],
    ['an empty page before the total', { page: 1, per_page: 2, total: 5, data: [] }, null],
    ['numbered, with no items', { page: 1, per_page: 2, total: 5 }, null],
    ['numbered, items under items', { page: 1, per_page: 2, total: 5, items: [a, b] }, 'svc-page:page=2'],
    [
      'a page number that is text is not numbered paging',
      { page: '1', per_page: 2, total: 5, data: [a] },
      null,
    ],
    [
      'numbered with has_more: true pages by the last id',
      { page: 1, per_page: 2, total: 5, has_more: true, data: [a, b] },
      'svc-page:starting_after=b',
    ],
    // Stripe's starting_after
    ['has_more: true, the last item’s id', { has_more: true, data: [a, b] }, 'svc-page:starting_after=b'],
    ['has_more: true, items under items', { has_more: true, items: [a] }, 'svc-page:starting_after=a'],
    ['has_more: "true" (text) is not more', { has_more: 'true', data: [a] }, null],
  ])('%s', (_, data, expected) => {
    expect(next(data)).toBe(expected);
  });

  const noWay = `the server's answer to ${WHAT} says there are more items (has_more: true) but gives no way to them (no next_cursor, next_offset, Link header or item id); svc stopped, so the listing is incomplete`;
  it.each([
    ['no items', { has_more: true }],
    ['an empty page', { has_more: true, data: [] }],
    ['a last item without an id', { has_more: true, data: [a, { name: 'x' }] }],
    ['a last item with an empty id', { has_more: true, data: [{ id: '' }] }],
    ['a last item whose id is a number', { has_more: true, data: [{ id: 7 }] }],
    ['a last item that is null', { has_more: true, data: [null] }],
  ])('has_more: true with %s throws rather than end silently', (_, data) => {
    const error = thrown(() => next(data));
    expect(error.message).toBe(noWay);
    expect(error.category).toBe('failure');
    expect(error.code).toBe('paging_unknown');
    expect(error.hint).toBe("the server's paging is not one svc understands: report it to its operator");
  });
});

describe('nextCursorOf: a Link header', () => {
  const u = (path: string) => `<${BASE}${path}>`;
  it.each([
    ['quoted rel', `${u('/t?c=2')}; rel="next"`, 'svc-page:link=/t?c=2'],
    ['unquoted rel', `${u('/t?c=2')}; rel=next`, 'svc-page:link=/t?c=2'],
    ['rel in capitals', `${u('/t?c=2')}; REL="NEXT"`, 'svc-page:link=/t?c=2'],
    [
      'several links, next in the middle',
      `${u('/t?p=1')}; rel="first", ${u('/t?p=3')}; rel="next", ${u('/t?p=9')}; rel="last"`,
      'svc-page:link=/t?p=3',
    ],
    [
      'several links without spaces',
      `${u('/t?p=1')};rel="prev",${u('/t?p=3')};rel="next"`,
      'svc-page:link=/t?p=3',
    ],
    ['rel after another parameter', `${u('/t?c=2')}; title="more"; rel="next"`, 'svc-page:link=/t?c=2'],
    ['a space before the semicolon', `${u('/t?c=2')} ; rel="next"`, 'svc-page:link=/t?c=2'],
    ['spaces around the equals sign', `${u('/t?c=2')}; rel = "next"`, 'svc-page:link=/t?c=2'],
    ['several rel values', `${u('/t?c=2')}; rel="last next"`, 'svc-page:link=/t?c=2'],
    [
      'a link with no rel, then next',
      `${u('/t?x=1')}; title="x", ${u('/t?c=2')}; rel="next"`,
      'svc-page:link=/t?c=2',
    ],
    ['a relative link', '</base/t?c=2>; rel="next"', 'svc-page:link=/t?c=2'],
    ['only prev: no next', `${u('/t?p=1')}; rel="prev"`, null],
    ['rel "nextpage" is not next', `${u('/t?p=1')}; rel="nextpage"`, null],
    ['an empty header', '', null],
  ])('%s', (_, header, expected) => {
    expect(next({}, header)).toBe(expected);
  });

  it('reads a header given as several lines', () => {
    expect(next({}, [`<${BASE}/t?p=1>; rel="prev"`, `<${BASE}/t?p=3>; rel="next"`])).toBe(
      'svc-page:link=/t?p=3',
    );
  });

  it('goes before next_cursor-less fields of the body', () => {
    expect(
      next({ next: '/base/body', next_offset: 3, data: [{ id: 'a' }] }, `<${BASE}/head>; rel="next"`),
    ).toBe('svc-page:link=/head');
  });
});

describe('nextCursorOf: a link outside the base URL', () => {
  const outside = (link: string, origin = BASE) =>
    `the server's answer to ${WHAT} names its next page at ${JSON.stringify(link)}, outside ${origin}; svc sends its credential nowhere else, so the listing is incomplete`;
  it.each([
    ['another origin', 'https://other.test/base/t?c=2'],
    ['another scheme', 'http://api.example.test/base/t?c=2'],
    ['another port', 'https://api.example.test:8443/base/t?c=2'],
    ['outside the base path', '/other/t?c=2'],
    ['a path that only starts like the base path', '/basement/t'],
    ['the base path itself', '/base'],
    ['a link that is not a URL', 'http://[::1'],
    ['dot segments out of the base path', '/base/../admin'],
  ])('%s: the exact error', (_, link) => {
    const error = thrown(() => next({ next: link }));
    expect(error.message).toBe(outside(link));
    expect(error.category).toBe('failure');
    expect(error.code).toBe('paging_unknown');
    expect(error.hint).toBe("the server's paging is not one svc understands: report it to its operator");
  });

  it('the same rule for a Link header', () => {
    const link = 'https://other.test/base/t';
    expect(thrown(() => next({}, `<${link}>; rel="next"`)).message).toBe(outside(link));
  });

  it('a base URL with trailing slashes has the same base path', () => {
    for (const base of [`${BASE}/`, `${BASE}//`]) {
      expect(nextCursorOf({ next: `${BASE}/t?c=2` }, {}, base, WHAT)).toBe('svc-page:link=/t?c=2');
      expect(thrown(() => nextCursorOf({ next: '/other' }, {}, base, WHAT)).message).toContain(
        `outside ${BASE}; svc sends`,
      );
    }
  });

  it('a base URL without a path takes any path of its origin', () => {
    expect(nextCursorOf({ next: '/v1/t?c=2' }, {}, 'https://api.example.test', WHAT)).toBe(
      'svc-page:link=/v1/t?c=2',
    );
  });
});

describe('followPage', () => {
  it.each([
    ['a server’s own cursor', { path: '/t', query: { cursor: 'abc', limit: 10 } }],
    ['no query', { path: '/t' }],
    ['a cursor that is not text', { path: '/t', query: { cursor: 5 } }],
    ['a cursor that only contains svc-page:', { path: '/t', query: { cursor: 'x-svc-page:offset=5' } }],
    ['an unknown way', { path: '/t', query: { cursor: 'svc-page:foo=1' } }],
    ['no way', { path: '/t', query: { cursor: 'svc-page:=1' } }],
    ['a way without "="', { path: '/t', query: { cursor: 'svc-page:offsetX' } }],
    ['a link to another host', { path: '/t', query: { cursor: 'svc-page:link=https://evil.test/x' } }],
    [
      'a link to another host without a scheme',
      { path: '/t', query: { cursor: 'svc-page:link=//evil.test/x' } },
    ],
    ['a link with a backslash', { path: '/t', query: { cursor: 'svc-page:link=/\\evil.test/x' } }],
    ['a relative link', { path: '/t', query: { cursor: 'svc-page:link=t?c=2' } }],
    ['a link with dot segments', { path: '/t', query: { cursor: 'svc-page:link=/../admin' } }],
    ['a link with encoded dot segments', { path: '/t', query: { cursor: 'svc-page:link=/a/%2e%2e/admin' } }],
    ['a link with a dot segment', { path: '/t', query: { cursor: 'svc-page:link=/a/./b' } }],
  ])('sends %s as it is (an opaque cursor)', (_, request) => {
    expect(followPage(request)).toBe(request);
  });

  it.each([
    ['an offset', 'svc-page:offset=50', { path: '/t', query: { limit: 10, status: 'open', offset: 50 } }],
    [
      'starting_after',
      'svc-page:starting_after=it_9',
      { path: '/t', query: { limit: 10, status: 'open', starting_after: 'it_9' } },
    ],
    [
      'starting_after an id with "="',
      'svc-page:starting_after=a=b',
      { path: '/t', query: { limit: 10, status: 'open', starting_after: 'a=b' } },
    ],
    ['a page', 'svc-page:page=3', { path: '/t', query: { limit: 10, status: 'open', page: 3 } }],
    [
      'a link: its path and query, with the page size asked only',
      'svc-page:link=/items?c=2&status=x',
      { path: '/items?c=2&status=x', query: { limit: 10 } },
    ],
  ])('follows %s', (_, cursor, expected) => {
    expect(followPage({ path: '/t', query: { cursor, limit: 10, status: 'open' } })).toStrictEqual(expected);
  });

  it('a link without a page size asked sends no query of its own', () => {
    expect(
      followPage({ path: '/t', query: { cursor: 'svc-page:link=/items?c=2', status: 'open' } }),
    ).toStrictEqual({
      path: '/items?c=2',
      query: {},
    });
  });

  it('keeps the other fields of the request', () => {
    expect(followPage({ path: '/t', method: 'GET', query: { cursor: 'svc-page:offset=4' } })).toStrictEqual({
      path: '/t',
      method: 'GET',
      query: { offset: 4 },
    });
  });

  it('follows what nextCursorOf gives, round trip', () => {
    const cursor = nextCursorOf({}, { link: `<${BASE}/items?c=2>; rel="next"` }, BASE, WHAT) as string;
    expect(followPage({ path: '/items', query: { cursor, limit: 5 } })).toStrictEqual({
      path: '/items?c=2',
      query: { limit: 5 },
    });
  });
});
