// The window of keys CursorTrail keeps to find repeats (SEEN_MAX), at its edges: each key is held
// once however often it comes, so the oldest dropped is the oldest read, and a key still within the
// window is still found (session 25's mutation run of src/http/paging.ts).
import { describe, expect, it } from 'vitest';
import type { SvcError } from '../../src/errors.js';
import { CursorTrail, cursorAfter, EMPTY_PAGES_MAX } from '../../src/http/paging.js';

const it_ = (n: number) => ({ id: `it_${n}` });
const SEEN_MAX_TEST = 100;

describe('CursorTrail: the window holds each key once', () => {
  it('an item twice among the items a page was asked again to skip is kept once: the next key read does not push it out of a window of 2, and its repeat on the next page is left out', () => {
    const trail = new CursorTrail(undefined, 'stop', 2);
    // The page asked again with its first two items printed by the command before: it_0 twice among them.
    expect([...trail.read([it_(0), it_(0), it_(1)], 'svc-page:offset=0#skip=2')]).toEqual([]);
    expect([...trail.read([it_(0), it_(2)], 'svc-page:offset=3')]).toEqual([it_(0)]);
    expect(trail.twice).toBe(1);
  });

  it('the window holds exactly its size of keys, the oldest dropped first: the key at its edge is still found, the one just past it is printed again (SEEN_MAX, as documented)', () => {
    const trail = new CursorTrail(undefined, 'stop', 2);
    trail.read([it_(0), it_(1), it_(2)], undefined);
    trail.read([it_(3)], 'c1');
    // Held: it_2 and it_3. it_1 and it_0 have left it (a window of 3, or one never emptied, would leave it_1 out).
    expect([...trail.read([it_(2), it_(1), it_(0)], 'c2')]).toEqual([it_(2)]);
    expect(trail.twice).toBe(1);
  });
});

describe("CursorTrail: the start cursor's &printed= keys no page held are handed on", () => {
  it('a key the page does not hold stays unmet, for the cut to carry; the next page holding it leaves it out, uncounted', () => {
    const cursor = 'svc-page:offset=3#skip=1&printed=it_1,it_9';
    const trail = new CursorTrail(cursor);
    expect([...trail.read([it_(3), it_(1), it_(4)], cursor)]).toEqual([it_(1)]);
    expect(trail.unmet()).toEqual(['it_9']);
    expect([...trail.read([it_(9), it_(5)], 'svc-page:offset=6')]).toEqual([it_(9)]);
    expect([trail.twice, trail.unmet()]).toEqual([0, []]);
  });

  it('a dead-letter drain (repeats counted once) keeps no &printed= keys of its start cursor: it leaves none out, so it hands none on', () => {
    const cursor = 'svc-page:offset=3#skip=1&printed=it_1,it_9';
    const drain = new CursorTrail(cursor, 'counted once');
    expect(drain.unmet()).toEqual([]);
    expect([...drain.read([it_(3), it_(1), it_(4)], cursor)]).toEqual([]);
    expect(drain.unmet()).toEqual([]);
  });
});

describe('CursorTrail.read: what a page is, at the edges', () => {
  it('a page whose items the command before printed all (#skip) is no page with new items: 20 pages of repeats after it stop the listing, its line and exit code those of a failure', () => {
    const start = 'svc-page:offset=3#skip=2';
    const trail = new CursorTrail(start);
    expect(trail.read([it_(0), it_(1)], start).size).toBe(0);
    for (let page = 1; page < 20; page++) expect(trail.read([it_(page % 2)], `c${page}`).size).toBe(1);
    let error: SvcError | undefined;
    try {
      trail.read([it_(0)], 'c20');
    } catch (thrown) {
      error = thrown as SvcError;
    }
    expect([error?.category, error?.exitCode, error?.code, error?.message.split(' (')[0]]).toEqual([
      'failure',
      1,
      'paging_moved',
      '20 of the 21 pages svc read held only items it had read already, 20 more than held new ones',
    ]);
  });

  it('a repeat the start cursor names (&printed=) coming right after the items skipped is left out, uncounted', () => {
    const cursor = 'svc-page:offset=3#skip=1&printed=it_1';
    const trail = new CursorTrail(cursor);
    expect([...trail.read([it_(3), it_(1), it_(4)], cursor)]).toEqual([it_(1)]);
    expect([trail.twice, trail.unmet()]).toEqual([0, []]);
  });

  it('empty pages are not pages of repeats: a sparse list with 25 empty pages under new cursors between its items is read to its end, not stopped as a list going round', () => {
    const trail = new CursorTrail();
    trail.read([it_(0)], undefined);
    for (let page = 1; page <= 25; page++) expect(trail.read([], `c${page}`).size).toBe(0);
    expect([...trail.read([it_(1)], 'c26')]).toEqual([]);
    expect(trail.twice).toBe(0);
  });

  it('nor pages with new items: a server going round, an empty page between its pages of repeats, is stopped after 20 more pages of repeats than pages with new items, its line counting every page read (it said 22 of 43)', () => {
    const trail = new CursorTrail();
    trail.read([it_(0), it_(1)], undefined);
    for (let round = 1; round <= 20; round++) {
      trail.read([], `e${round}`);
      expect(trail.read([it_(round % 2)], `r${round}`).size).toBe(1);
    }
    trail.read([], 'e21');
    expect(() => trail.read([it_(1)], 'r21')).toThrow(
      /^21 of the 43 pages svc read held only items it had read already, 20 more than held new ones/,
    );
  });
});

describe('CursorTrail.read: empty pages in a row, each under a new cursor, are bounded (report-mutp "noticed")', () => {
  /** The pages a fake server sends: `items` on each, under the cursor svc sent for it, as a listing reads them. */
  const serve = (trail: CursorTrail, pages: readonly (readonly { id: string }[])[]) => {
    let asked: string | undefined;
    pages.forEach((items, at) => {
      const repeated = trail.read(items, asked);
      asked = trail.next(items.length - repeated.size, `c${at + 1}`);
    });
  };
  const caught = (run: () => void): SvcError | undefined => {
    try {
      run();
    } catch (thrown) {
      return thrown as SvcError;
    }
    return undefined;
  };

  it('a server sending empty pages for ever with new cursors is stopped at the bound, its line saying what svc saw and what was listed before, exit 1 as the repeat stop, the line kept as it is by failed()', () => {
    const trail = new CursorTrail(undefined, 'stop', SEEN_MAX_TEST, 5);
    const error = caught(() => serve(trail, [[it_(0), it_(1)], [it_(2)], [], [], [], [], [], []]));
    expect([error?.category, error?.exitCode, error?.code, error?.message]).toEqual([
      'failure',
      1,
      'paging_empty',
      'the server sent 5 empty pages in a row, each with a new cursor, after 3 items; svc stopped rather than read empty pages for ever, so the listing is incomplete: it holds only the 3 items before them',
    ]);
    expect(trail.failed(error)).toBe(error);
    expect(error?.message).not.toMatch(/next page failed/);
  });

  it('empty pages not in a row are a sparse list: 4 empty, an item, 4 empty, an item, read to the end under a bound of 5', () => {
    const trail = new CursorTrail(undefined, 'stop', SEEN_MAX_TEST, 5);
    expect(
      caught(() => serve(trail, [[it_(0)], [], [], [], [], [it_(1)], [], [], [], [], [it_(2)]])),
    ).toBeUndefined();
  });

  it('an empty first page is no page under a new cursor: the bound counts only the empty pages after it', () => {
    // Session 26's Stryker run of lines 189-192: counted, the line said "3 empty pages in a row,
    // each with a new cursor" after 2 asked with one.
    const trail = new CursorTrail(undefined, 'stop', SEEN_MAX_TEST, 3);
    expect(caught(() => serve(trail, [[], [], []]))).toBeUndefined();
    expect(caught(() => trail.read([], 'c3'))?.message).toMatch(/^the server sent 3 empty pages in a row, /);
  });

  it('one item before the empty pages is said as one: "after 1 item", "only the 1 item before them"', () => {
    // Session 27's Stryker run of lines 319-440: the plural of emptyPages' count survived.
    const trail = new CursorTrail(undefined, 'stop', SEEN_MAX_TEST, 2);
    expect(caught(() => serve(trail, [[it_(0)], [], [], []]))?.message).toBe(
      'the server sent 2 empty pages in a row, each with a new cursor, after 1 item; svc stopped rather than read empty pages for ever, so the listing is incomplete: it holds only the 1 item before them',
    );
  });

  it('a dead-letter drain (repeats counted once) is stopped the same; the bound is 1,000 unless a test lowers it', () => {
    const drain = new CursorTrail(undefined, 'counted once', SEEN_MAX_TEST, 3);
    expect(caught(() => serve(drain, [[], [], [], []]))?.code).toBe('paging_empty');
    expect(EMPTY_PAGES_MAX).toBe(1_000);
    const trail = new CursorTrail();
    expect(caught(() => serve(trail, [[it_(0)], ...Array.from({ length: 999 }, () => [])]))).toBeUndefined();
    expect(caught(() => trail.read([], 'c1000'))?.message).toMatch(
      /^the server sent 1,000 empty pages in a row, /,
    );
  });
});

describe('cursorAfter: the cursor of a --limit reached at a page end (closing note of session 23, review24a M1)', () => {
  const its = (n: number, from = 0) => Array.from({ length: n }, (_, i) => it_(from + i));

  it('a page by position carries the keys of the last PRINTED_LAST items printed; nothing to carry is the cursor as it is', () => {
    expect(cursorAfter('svc-page:offset=12', its(12))).toBe(
      'svc-page:offset=12#skip=0&printed=it_2,it_3,it_4,it_5,it_6,it_7,it_8,it_9,it_10,it_11',
    );
    expect(cursorAfter('svc-page:page=2&per_page=3', its(3))).toBe(
      'svc-page:page=2&per_page=3#skip=0&printed=it_0,it_1,it_2',
    );
    expect(cursorAfter('svc-page:link=/items?offset=3', [])).toBe('svc-page:link=/items?offset=3');
  });

  it('the keys the start cursor named and no page held go first, within PRINTED_LAST in all: the last of them', () => {
    const unmet = ['u_0', 'u_1', 'u_2', 'u_3'];
    expect(cursorAfter('svc-page:offset=20', its(8), unmet)).toBe(
      'svc-page:offset=20#skip=0&printed=u_2,u_3,it_0,it_1,it_2,it_3,it_4,it_5,it_6,it_7',
    );
    expect(cursorAfter('svc-page:offset=20', its(10), unmet)).toBe(
      `svc-page:offset=20#skip=0&printed=${its(10)
        .map((item) => item.id)
        .join(',')}`,
    );
    expect(cursorAfter('svc-page:offset=20', [], ['u_0'])).toBe('svc-page:offset=20#skip=0&printed=u_0');
  });

  it("a server's cursor, starting_after, or a cursor of svc's already cut or carrying keys is handed as it is", () => {
    for (const next of [
      'c2',
      'svc-page:starting_after=it_2',
      'svc-page:cursor=c2',
      'svc-page:offset=3#skip=1',
      'svc-page:offset=3#skip=0&printed=it_0',
    ]) {
      expect(cursorAfter(next, its(3), ['u_0'])).toBe(next);
    }
  });
});
