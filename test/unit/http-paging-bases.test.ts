// Numbered pages svc cannot take as they say (fix-list21 3), in-process against src/http/paging.ts:
// a page with no page number where one is needed, a short page mid-list carried to the last page's
// check of the total, and a page repeating the page before it.
import { describe, expect, it } from 'vitest';
import { CursorTrail, followPage, nextCursorOf } from '../../src/http/paging.js';
import { thrown } from '../helpers/thrown.js';

const BASE = 'https://api.example.test/base';
const WHAT = 'GET /items';
const next = (data: unknown, cursor?: string) =>
  nextCursorOf(data, {}, BASE, WHAT, { path: '/items', ...(cursor ? { cursor } : {}) });
const items = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ id: `it_${from + i}` }));

describe('a page without its number (fix-list21 3a)', () => {
  it('a first page counting more pages (total_pages) and not saying which it is: refused, not the whole list', () => {
    const error = thrown(() => next({ per_page: 20, total_pages: 3, items: items(20) }));
    expect([error.code, error.message]).toEqual([
      'paging_unknown',
      "the server's answer to GET /items counts 3 pages (total_pages) but does not say which page it is (page), so not which page comes next (a server counting its pages from 0 and one counting from 1 answer page=1 differently); svc stopped, so the listing is incomplete",
    ]);
  });

  it('a first page of one page (total_pages: 1), or saying next_cursor: null, is the whole list', () => {
    expect(next({ per_page: 20, total_pages: 1, items: items(5) })).toBeNull();
    expect(next({ per_page: 20, total_pages: 3, next_cursor: null, items: items(5) })).toBeNull();
  });

  it('a page asked by number answered without one: refused, not taken as the last', () => {
    const error = thrown(() =>
      next({ per_page: 20, total: 60, items: items(20) }, 'svc-page:page=2&per_page=20'),
    );
    expect([error.code, error.message]).toEqual([
      'paging_unknown',
      "the server's answer to GET /items, asked for page 2, does not say which page it is (page), so not that it is the page after the ones read; svc stopped, so the listing is incomplete",
    ]);
  });
});

describe('a short page mid-list (fix-list21 3b)', () => {
  it('is read on by number, its lack carried in the cursor', () => {
    expect(next({ page: 1, per_page: 20, total: 60, items: items(15) })).toBe(
      'svc-page:page=2&per_page=20&short=5',
    );
    expect(
      next({ page: 2, per_page: 20, total: 60, items: items(20) }, 'svc-page:page=2&per_page=20&short=5'),
    ).toBe('svc-page:page=3&per_page=20&short=5');
    expect(followPage({ path: '/items', query: { cursor: 'svc-page:page=3&per_page=20&short=5' } })).toEqual({
      path: '/items',
      query: { page: 3, limit: 20 },
    });
  });

  it('the last page, full, with fewer items read than the total: refused, not the end', () => {
    const error = thrown(() =>
      next({ page: 3, per_page: 20, total: 60, items: items(20) }, 'svc-page:page=3&per_page=20&short=5'),
    );
    expect([error.code, error.message]).toEqual([
      'paging_moved',
      "the server's answer to GET /items is page 3 with 20 items and no page after it, but counts 60 items (total), and the pages up to it hold 55 items at most: the others are on no page svc can ask for; svc stopped, so the listing is incomplete",
    ]);
  });

  it('0-based, and an empty page after a short one, the same', () => {
    expect(next({ page: 0, per_page: 20, total: 60, items: items(19) })).toBe(
      'svc-page:page=1&per_page=20&base=0&short=1',
    );
    const error = thrown(() =>
      next({ page: 3, per_page: 20, total: 60, items: [] }, 'svc-page:page=3&per_page=20&base=0&short=1'),
    );
    expect(error.code).toBe('paging_moved');
  });

  it('with no count of the list, a short page is still the last (nothing says more follow)', () => {
    expect(next({ page: 2, per_page: 20, items: items(5) }, 'svc-page:page=2&per_page=20')).toBeNull();
  });
});

describe('CursorTrail.read: a numbered page repeating the page before (fix-list21 3a)', () => {
  it('is refused before it is printed, naming an item it repeats', () => {
    const trail = new CursorTrail();
    trail.read(items(3), undefined);
    const error = thrown(() => trail.read(items(3), 'svc-page:page=1&per_page=3&base=0'));
    expect([error.code, error.message]).toEqual([
      'paging_moved',
      'page 1 of the listing, as svc counted the pages (from 0, as the first page said), repeats the whole page before it (it_0): the server counts its pages otherwise than its first page said, or ignores the page number asked for, so the page after it would never be read (or the list gained a whole page of items while svc read it); svc stopped, so the listing is incomplete',
    ]);
  });

  it('the next page of other items passes; pages of a server cursor or starting_after repeating some items have them left out (brief paging23 1)', () => {
    const trail = new CursorTrail();
    trail.read(items(3), undefined);
    trail.read(items(3, 3), 'svc-page:page=2&per_page=3');
    // A server's cursor may be an offset inside, or its list may list an item twice: printed once.
    expect([...trail.read(items(3, 5), 'c3')]).toEqual([{ id: 'it_5' }]);
    expect([...trail.read(items(3, 7), 'svc-page:starting_after=it_7')]).toEqual([{ id: 'it_7' }]);
    // The first item of a page asked again by a cut (#skip) was printed by the command before: not counted.
    expect(trail.read(items(3, 9), 'svc-page:cursor=c4#skip=1').size).toBe(0);
    trail.read(['text', 'text'], 'svc-page:page=3&per_page=3');
    trail.read(['text'], 'svc-page:page=4&per_page=3');
    expect(trail.twice).toBe(2);
  });

  // brief paging22 3: a server ignoring its cursor printed the page twice before the cursor loop.
  it.each([
    [
      'c1',
      'the page at the server\'s cursor "c1" repeats the whole page before it (it_0): the server ignores the cursor asked for',
    ],
    [
      'svc-page:starting_after=it_2',
      'the page after it_2 (starting_after) repeats the whole page before it (it_0): the server ignores starting_after',
    ],
    // The server's cursor in one of svc's own (a page asked again after a cut): the line names
    // the server's cursor, not svc's (session 27's Stryker run of lines 319-440: 395 survived).
    [
      'svc-page:cursor=c2#skip=1',
      'the page at the server\'s cursor "c2" repeats the whole page before it (it_0): the server ignores the cursor asked for',
    ],
  ])('a page of the cursor %s repeating the whole page before stops, cursor_loop', (cursor, words) => {
    const trail = new CursorTrail();
    trail.read(items(3), undefined);
    const error = thrown(() => trail.read(items(4), cursor));
    expect([error.code, error.message]).toEqual([
      'cursor_loop',
      `${words}, which names the place after that page, so the page after it would never be read; svc stopped, so the listing is incomplete`,
    ]);
  });

  it('a link page repeating the whole page before is stopped as a cursor page is (left out, it looped printing nothing); a dead-letter drain (counted once) is not', () => {
    const linked = new CursorTrail();
    linked.read(items(3), undefined);
    expect(() => linked.read(items(3), 'svc-page:link=/v1/users?page=2')).toThrow(
      /links back to a page already read/,
    );
    expect(linked.read([...items(2), { id: 'it_9' }], 'svc-page:link=/v1/users?page=3').size).toBe(2);
    expect(linked.twice).toBe(2);
    const drain = new CursorTrail(undefined, 'counted once');
    drain.read(items(3), undefined);
    expect(drain.read(items(3), 'c1').size).toBe(0);
  });
});

describe('CursorTrail.read: every kind of item, and offset pages (review21 F3, F5, review21c F2, F4)', () => {
  const grant = (user: string, role: string, extra: Record<string, unknown> = {}) => ({
    user_id: user,
    role_id: role,
    assigned_at: '2026-01-01T00:00:00Z',
    ...extra,
  });
  const refused = (first: unknown[], again: unknown[], asked = 'svc-page:page=2&per_page=2') => {
    const trail = new CursorTrail();
    trail.read(first, undefined);
    return thrown(() => trail.read(again, asked));
  };
  /** The items of `again` printed once (left out of it) after a page `first`, and the trail's count. */
  const once = (first: unknown[], again: unknown[], asked = 'svc-page:offset=3') => {
    const trail = new CursorTrail();
    trail.read(first, undefined);
    return [[...trail.read(again, asked)], trail.twice];
  };

  it('a role assignment (no id) is known by its audit entry, else its user, role and assigned_at', () => {
    const a = grant('usr_1', 'viewer', { audit_trail_id: 'aud_1' });
    const b = grant('usr_2', 'viewer', { audit_trail_id: 'aud_2' });
    const c = grant('usr_3', 'viewer', { audit_trail_id: 'aud_3' });
    expect(once([a, b], [b, c])).toEqual([[b], 1]);
    const error = refused([a, b], [a, b]);
    expect([error.code, error.message]).toEqual([
      'paging_moved',
      'page 2 of the listing, as svc counted the pages (from 1, as the first page said), repeats the whole page before it (usr_1 viewer aud_1): the server counts its pages otherwise than its first page said, or ignores the page number asked for, so the page after it would never be read (or the list gained a whole page of items while svc read it); svc stopped, so the listing is incomplete',
    ]);
    expect(refused([grant('usr_1', 'viewer')], [grant('usr_1', 'viewer')]).message).toContain(
      '(usr_1 viewer 2026-01-01T00:00:00Z)',
    );
    // The same user and role granted again (another assigned_at, another audit entry) is another row.
    const trail = new CursorTrail();
    trail.read([a, grant('usr_1', 'viewer', { assigned_at: '2026-02-01T00:00:00Z' })], undefined);
    expect([
      ...trail.read([grant('usr_1', 'viewer', { audit_trail_id: 'aud_9' })], 'svc-page:page=2&per_page=2'),
    ]).toEqual([]);
    trail.read(
      [grant('usr_1', 'viewer', { assigned_at: '2026-03-01T00:00:00Z' })],
      'svc-page:page=3&per_page=2',
    );
    expect(trail.twice).toBe(0);
  });

  it('an OAuth client by its client_id; any other object is not compared (equal rows are no repeat)', () => {
    const client = { client_id: 'cl_1', name: 'a' };
    expect(refused([client], [{ ...client, name: 'renamed' }]).message).toContain('(cl_1)');
    // A check log's rows have no identity: two equal either side of a page boundary are two rows.
    const failed = { status: 'failed', region: 'eu' };
    const rows = [{ status: 'ok', region: 'us' }, { status: 'ok', region: 'eu' }, failed];
    expect(
      once(rows, [{ ...failed }, { status: 'ok', region: 'ap' }, { status: 'ok', region: 'us' }]),
    ).toEqual([[], 0]);
    expect(
      once(
        rows,
        rows.map((row) => ({ ...row })),
        'svc-page:page=2&per_page=3',
      ),
    ).toEqual([[], 0]);
    expect(once([{ name: 'records.read' }], [{ name: 'records.read' }])).toEqual([[], 0]);
  });

  it('an offset page repeating some items of the page before (items added ahead): each printed once, the listing goes on', () => {
    expect(once(items(3), items(3, 2))).toEqual([[items(3, 2)[0]], 1]);
    expect(once(items(3), items(3, 1), 'svc-page:page=2&per_page=3')).toEqual([items(2, 1), 2]);
    const trail = new CursorTrail();
    trail.read(items(3), undefined);
    trail.read(items(3, 2), 'svc-page:offset=3');
    trail.read(items(3, 4), 'svc-page:offset=6');
    expect(trail.twice).toBe(2);
  });

  it('an offset page repeating the whole page before is refused, the same code', () => {
    const error = refused(items(3), items(3), 'svc-page:offset=3');
    expect([error.code, error.message, error.hint]).toEqual([
      'paging_moved',
      'the page at offset 3 of the listing repeats the whole page before it (it_0): the server counts its offsets otherwise, or ignores the offset asked for, so the page after it would never be read (or the list gained a whole page of items while svc read it); svc stopped, so the listing is incomplete',
      "run the command again from the start (without --cursor); if it repeats on every run while the list is not changing, the server's paging is broken: report it to its operator",
    ]);
    expect(refused(items(3), items(4), 'svc-page:offset=3#skip=1').code).toBe('paging_moved');
  });

  it('a listing counting each item once (a dead-letter drain) passes a repeat to it', () => {
    const trail = new CursorTrail(undefined, 'counted once');
    trail.read(items(3), undefined);
    trail.read(items(3, 2), 'svc-page:offset=3');
    trail.read(items(3, 4), 'svc-page:page=2&per_page=3');
  });
});
