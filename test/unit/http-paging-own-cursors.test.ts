// svc's own cursors and the numbered page asked by one (src/http/paging.ts ownPage, lastOfAsked):
// the survivors of session 27's Stryker run of lines 441-498 and 720-805, each applied by hand and
// seen failing first. A cursor svc did not write is sent as it is, never read as a page; a page
// other than the one asked, or short of its count, stops the listing with the line that says
// why, never a listing silently partial.
import { describe, expect, it } from 'vitest';
import { followPage, nextCursorOf } from '../../src/http/paging.js';
import { thrown } from '../helpers/thrown.js';

const BASE = 'https://api.example.test/base';
const WHAT = 'GET /items';
const a = { id: 'a' };
const INCOMPLETE = 'svc stopped, so the listing is incomplete';

function next(data: unknown, cursor?: string) {
  return nextCursorOf(
    data,
    {},
    BASE,
    WHAT,
    cursor === undefined ? { path: '/items' } : { path: '/items', cursor },
  );
}

describe('ownPage: a cursor svc did not write is sent as it is (session 27)', () => {
  it.each([
    ['a negative page', 'svc-page:page=-1&per_page=3'],
    ['a page with letters before its number', 'svc-page:page=x1&per_page=3'],
    ['an unknown way whose value is a path', 'svc-page:foo=/items'],
  ])('sends %s as it is, not as a page svc asks for', (_, cursor) => {
    const request = { path: '/t', query: { cursor, limit: 10 } };
    expect(followPage(request)).toBe(request);
  });
});

describe('lastOfAsked: the numbered page asked by svc’s cursor (session 27)', () => {
  const moved = (answer: string) =>
    `the server's answer to ${WHAT} ${answer}, but svc asked for page 3 of 20 (the size the pages before it were counted in): its items are not the ones after those, so rows would be printed twice or left out; ${INCOMPLETE}`;

  it('an empty page other than the one asked is refused as moved, though its total is reached', () => {
    const error = thrown(() =>
      next({ page: 5, per_page: 20, items: [], total: 40 }, 'svc-page:page=3&per_page=20'),
    );
    expect([error.message, error.code]).toEqual([moved('is page 5 of 20 items a page'), 'paging_moved']);
  });

  it('a full page of another size than asked is refused as moved, though it reaches the total', () => {
    const items = Array.from({ length: 25 }, () => a);
    const error = thrown(() =>
      next({ page: 3, per_page: 25, items, total: 65 }, 'svc-page:page=3&per_page=20'),
    );
    expect([error.message, error.code]).toEqual([moved('is page 3 of 25 items a page'), 'paging_moved']);
  });

  it('an empty page asked, the last that total_pages counts, stops the listing: its items are missing', () => {
    const error = thrown(() =>
      next({ page: 3, per_page: 20, items: [], total_pages: 3 }, 'svc-page:page=3&per_page=20'),
    );
    expect([error.message, error.code]).toEqual([
      `the server's answer to ${WHAT} is page 3 with 0 items and no page after it, but counts 3 pages (total_pages), and the pages up to it hold 40 items at most: the others are on no page svc can ask for; ${INCOMPLETE}`,
      'paging_moved',
    ]);
    // Past the last page it counts, the empty page ends the list.
    expect(
      next({ page: 3, per_page: 20, items: [], total_pages: 2 }, 'svc-page:page=3&per_page=20'),
    ).toBeNull();
  });
});

describe('the stop line of a last page short of its count, in one item (session 27)', () => {
  it('says "1 item", not "1 items", of the page, the total and the pages up to it', () => {
    const one = thrown(() => next({ page: 1, per_page: 20, items: [a], total: 5 }));
    expect([one.message, one.code]).toEqual([
      `the server's answer to ${WHAT} is page 1 with 1 item and no page after it, but counts 5 items (total), and the pages up to it hold 1 item at most: the others are on no page svc can ask for; ${INCOMPLETE}`,
      'paging_moved',
    ]);
    const none = thrown(() => next({ page: 1, per_page: 20, items: [], total: 1 }));
    expect(none.message).toBe(
      `the server's answer to ${WHAT} is page 1 with 0 items and no page after it, but counts 1 item (total), and the pages up to it hold 0 items at most: the others are on no page svc can ask for; ${INCOMPLETE}`,
    );
  });
});

describe('olderCursor: an older svc’s numbered cursor, by its whole text (session 27)', () => {
  it.each(['svc-page:page=12', 'svc-page:page=3#skip=12'])('refuses %s, its page size unknown', (cursor) => {
    const error = thrown(() => followPage({ path: '/t', query: { cursor, limit: 10 } }));
    expect([error.message, error.exitCode]).toEqual([
      `the cursor ${JSON.stringify(cursor)} was printed by an older svc and does not say the page size its page was counted in, so svc cannot ask for that page`,
      2,
    ]);
  });

  it('sends a server’s cursor that only ends like one as it is', () => {
    const request = { path: '/t', query: { cursor: 'x-svc-page:page=3', limit: 10 } };
    expect(followPage(request)).toBe(request);
  });
});
