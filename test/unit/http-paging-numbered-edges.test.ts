// nextCursorOf at the edges of its numbered-page and count rules (src/http/paging.ts lines 581-719):
// the seven survivors of session 26's Stryker run of those lines, each applied by hand and seen
// failing first. A page that ends the list ends it; one that cannot say where the rest is stops
// the listing with the line that says why, never a listing silently partial.
import { describe, expect, it } from 'vitest';
import { nextCursorOf } from '../../src/http/paging.js';
import { thrown } from '../helpers/thrown.js';

const BASE = 'https://api.example.test/base';
const WHAT = 'GET /items';
const a = { id: 'a' };

function next(data: unknown, cursor?: string) {
  return nextCursorOf(
    data,
    {},
    BASE,
    WHAT,
    cursor === undefined ? { path: '/items' } : { path: '/items', cursor },
  );
}

const INCOMPLETE = 'svc stopped, so the listing is incomplete';

describe('nextCursorOf: numbered pages and counts at their edges (session 26)', () => {
  it('a later page of a server cursor that counts its pages and sends no next_cursor is the last page', () => {
    // Only a first page must say which page it is to go on: a later one asked by the server's own
    // cursor ends the list (the reference's word for the last page is no next_cursor).
    expect(next({ items: [a], total_pages: 3 }, 'c2')).toBeNull();
    // The same on the first page is refused: the rest of the list is on pages svc cannot number.
    expect(thrown(() => next({ items: [a], total_pages: 3 })).code).toBe('paging_unknown');
  });

  it('a page asked by number that does not say its size is refused for that, not as a page moved', () => {
    const error = thrown(() => next({ page: 2, items: [a], total: 30 }, 'svc-page:page=2&per_page=20'));
    expect([error.message, error.code, error.exitCode]).toEqual([
      `the server's answer to ${WHAT} is page 2 of a numbered list but does not say its page size (per_page), so not where page 3 starts; ${INCOMPLETE}`,
      'paging_unknown',
      1,
    ]);
  });

  it('an empty first page numbered past the first, without its size, is refused for its size', () => {
    const error = thrown(() => next({ page: 3, items: [], total: 5 }));
    expect([error.message, error.code]).toEqual([
      `the server's answer to ${WHAT} is page 3 of a numbered list but does not say its page size (per_page), so not where page 4 starts; ${INCOMPLETE}`,
      'paging_unknown',
    ]);
  });

  it('an empty first page numbered past the first, in a size, short of its total, stops the listing', () => {
    // Not read on as page 4: the 60 items the pages up to it would hold are on no page svc read.
    const error = thrown(() => next({ page: 3, per_page: 20, items: [], total: 100 }));
    expect([error.message, error.code]).toEqual([
      `the server's answer to ${WHAT} is page 3 with 0 items and no page after it, but counts 100 items (total), and the pages up to it hold 40 items at most: the others are on no page svc can ask for; ${INCOMPLETE}`,
      'paging_moved',
    ]);
  });

  it('an empty first page counting 2 pages stops the listing; counting 1, it is an empty list', () => {
    const error = thrown(() => next({ page: 1, per_page: 20, items: [], total_pages: 2 }));
    expect([error.message, error.code]).toEqual([
      `the server's answer to ${WHAT} is page 1 with 0 items and no page after it, but counts 2 pages (total_pages), and the pages up to it hold 0 items at most: the others are on no page svc can ask for; ${INCOMPLETE}`,
      'paging_moved',
    ]);
    expect(next({ page: 1, per_page: 20, items: [], total_pages: 1 })).toBeNull();
  });

  it('a page asked by offset that answers with page numbers is read on by them, not refused as moved', () => {
    // Only svc's own numbered cursor asked for a page number and size the answer must match.
    const twenty = Array.from({ length: 20 }, () => a);
    expect(next({ page: 2, per_page: 20, items: twenty, total: 100 }, 'svc-page:offset=20')).toBe(
      'svc-page:page=3&per_page=20',
    );
  });
});
