// Items a listing has printed, kept for the whole listing (brief paging23), in-process against
// src/http/paging.ts: a repeat anywhere is left out and counted once; a cursor cut within a page
// names the repeats after the cut (`&printed=`) and the next command leaves them out, uncounted;
// and what the keys of 100,000 items cost.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { SvcError } from '../../src/errors.js';
import {
  CursorTrail,
  cursorWithin,
  followPage,
  keptNote,
  REPEATED_PAGES_MAX,
  SEEN_MAX,
  skipOf,
} from '../../src/http/paging.js';

const items = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ id: `it_${from + i}` }));
const it_ = (n: number) => ({ id: `it_${n}` });

describe('CursorTrail.read: every item printed once, wherever its repeat comes (brief paging23 1)', () => {
  it.each([
    ['offset pages', (n: number) => `svc-page:offset=${n}`],
    ["the server's cursor", (n: number) => `c${n}`],
    ['starting_after', (n: number) => `svc-page:starting_after=it_${n - 1}`],
    ['links', (n: number) => `svc-page:link=/items?offset=${n}`],
  ])('%s: a repeat two pages back, and one further on a page, are left out and counted', (_, at) => {
    const trail = new CursorTrail();
    trail.read(items(3), undefined);
    expect([...trail.read([it_(3), it_(4), it_(5)], at(3))]).toEqual([]);
    expect([...trail.read([it_(6), it_(1), it_(7)], at(6))]).toEqual([it_(1)]);
    expect([...trail.read([it_(8), it_(9), it_(4)], at(9))]).toEqual([it_(4)]);
    expect(trail.twice).toBe(2);
  });

  it('a link page repeating the whole page before stops the listing (it looped printing nothing), worded as an offset page is: a link names a position, and the list may have gained a page (review23a F6)', () => {
    const trail = new CursorTrail();
    trail.read(items(3), undefined);
    let error: SvcError | undefined;
    try {
      trail.read(items(3), 'svc-page:link=/items?page=1');
    } catch (thrown) {
      error = thrown as SvcError;
    }
    // A stop, exit 1, as every other page repeat (session 27's Stryker run: 387 'failure' -> '' survived).
    expect([error?.category, error?.exitCode, error?.code, error?.message, error?.hint]).toEqual([
      'failure',
      1,
      'paging_moved',
      'the page at the server\'s next link "/items?page=1" repeats the whole page before it (it_0): the list gained a whole page of items while svc read it (a link names a position: an offset, a page number), or the server links back to a page already read, so the page after it would never be read; svc stopped, so the listing is incomplete',
      "run the command again from the start (without --cursor); if it repeats on every run while the list is not changing, the server's paging is broken: report it to its operator",
    ]);
  });

  it('pages A, B, A, B… under ever-changing links: stopped at the page of repeats only 20 more than the pages with new items, one line (review23a F7: it looped printing nothing)', () => {
    const trail = new CursorTrail();
    const link = (page: number) => `svc-page:link=/items?page=${page % 2}&t=${page}`;
    trail.read(items(3), undefined);
    trail.read(items(3, 3), link(1));
    for (let page = 2; page < 2 + 22 - 1; page++) {
      expect(trail.read(items(3, (page % 2) * 3), link(page)).size).toBe(3);
    }
    let error: SvcError | undefined;
    try {
      trail.read(items(3, 3), link(23));
    } catch (thrown) {
      error = thrown as SvcError;
    }
    expect([REPEATED_PAGES_MAX, error?.code, error?.message, error?.hint]).toEqual([
      20,
      'paging_moved',
      "22 of the 24 pages svc read held only items it had read already, 20 more than held new ones (the list grew faster than svc read it, or the server's pages go round under ever-changing cursors or links); svc stopped, so the listing is incomplete",
      "run the command again from the start (without --cursor); if it repeats on every run while the list is not changing, the server's paging is broken: report it to its operator",
    ]);
  });

  it('pages of repeats among pages with new items: the listing goes on while they are fewer than 20 more (a busy list read by offset goes on)', () => {
    const trail = new CursorTrail();
    trail.read(items(3), undefined);
    for (let round = 0; round < 3; round++) {
      // 7 pages of items read before (none the whole page before it), then one new item.
      for (let page = 1; page < 8; page++) trail.read(items(2, page % 2), `c${round}-${page}`);
      expect(trail.read([it_(0), it_(100 + round)], `c${round}`).size).toBe(1);
    }
    // 21 pages of repeats to 4 with new items: 2 more go on, the 3rd stops it.
    trail.read(items(2, 1), 'd1');
    trail.read(items(2, 0), 'd2');
    expect(() => trail.read(items(2, 1), 'd3')).toThrow('24 of the 28 pages svc read held only items');
  });

  it('a list read for more pages than 20 bears as many more pages of repeats as it has read pages with new items (a burst of a busy list calms; closing note of session 23)', () => {
    const trail = new CursorTrail();
    // 30 pages of new items (ids 0 … 89), then 49 pages in a row of items read before: it goes on.
    for (let page = 0; page < 30; page++) trail.read(items(3, page * 3), page === 0 ? undefined : `n${page}`);
    const repeats = (count: number, round: string) => {
      for (let page = 0; page < count; page++) trail.read(items(2, (page % 40) * 2), `${round}-${page}`);
    };
    repeats(49, 'a');
    expect(trail.read([it_(0), it_(500)], 'new').size).toBe(1);
    // 31 pages with new items now: the 51st page of repeats in all stops it.
    repeats(1, 'b');
    let error: SvcError | undefined;
    try {
      trail.read(items(2, 2), 'c');
    } catch (thrown) {
      error = thrown as SvcError;
    }
    expect([error?.code, error?.message.slice(0, 66)]).toEqual([
      'paging_moved',
      '51 of the 82 pages svc read held only items it had read already, 2',
    ]);
  });

  it('a server going round 25 pages of 4 under ever-changing links, over a list gaining an item a round: stopped, its pages of repeats 20 more than its pages with new items (review24a M2: read for ever, a round of requests per new item)', () => {
    const trail = new CursorTrail();
    const page = (round: number, at: number) =>
      at === 0 && round > 0 ? [{ id: `new_${round}` }, ...items(3)] : items(4, at * 4);
    let [reads, error] = [0, undefined as SvcError | undefined];
    try {
      for (let round = 0; round < 2_000; round++) {
        for (let at = 0; at < 25; at++) {
          reads++;
          trail.read(page(round, at), reads === 1 ? undefined : `svc-page:link=/v1/x?p=${at}&t=${round}`);
        }
      }
    } catch (thrown) {
      error = thrown as SvcError;
    }
    // Round 0: 25 pages with new items; rounds 1 and 2: one each, then 24 and 23 pages of repeats.
    expect([reads, error?.code, error?.message, error?.hint]).toEqual([
      25 + (1 + 24) + (1 + 23),
      'paging_moved',
      "47 of the 74 pages svc read held only items it had read already, 20 more than held new ones (the list grew faster than svc read it, or the server's pages go round under ever-changing cursors or links); svc stopped, so the listing is incomplete",
      "run the command again from the start (without --cursor); if it repeats on every run while the list is not changing, the server's paging is broken: report it to its operator",
    ]);
  });

  it('bursts of repeats, each calmed by one page with new items: the pages of repeats stay within 20 more than those with new items (review24a M2: 6,850 repeats to 120 new pages; "at most twice" was untrue)', () => {
    const trail = new CursorTrail();
    for (let page = 0; page < 20; page++) trail.read(items(3, page * 3), page === 0 ? undefined : `n${page}`);
    let [newPages, repeated, fresh] = [20, 0, 1_000];
    let error: SvcError | undefined;
    try {
      for (let burst = 0; burst < 100; burst++) {
        // As long a burst as the old bound bore (as many pages as those with new items, less one).
        for (let page = 0; page < newPages - 1; page++) {
          trail.read(items(2, page * 2), `b${burst}-${page}`);
          repeated++;
        }
        trail.read([it_(0), it_(fresh++)], `b${burst}-new`);
        newPages++;
      }
    } catch (thrown) {
      error = thrown as SvcError;
    }
    expect(error?.code).toBe('paging_moved');
    expect(repeated + 1).toBe(newPages + 20);
  });

  it('an item twice within one page: its second is left out', () => {
    const trail = new CursorTrail();
    const page = [it_(0), it_(1), { ...it_(0) }];
    expect([...trail.read(page, undefined)]).toEqual([page[2]]);
    expect(trail.twice).toBe(1);
  });

  it('the keys of the last SEEN_MAX items are kept (review23a F4): a repeat further back is printed again; one within a page larger than that is still found', () => {
    const trail = new CursorTrail(undefined, 'stop', 4);
    trail.read(items(3), undefined);
    trail.read([it_(3), it_(4), it_(5)], 'c3');
    // it_0 and it_1 have left the window of 4; it_2 has not.
    expect([...trail.read([it_(2), it_(0)], 'c6')]).toEqual([it_(2)]);
    const page = [...items(6, 10), it_(10)];
    expect([...trail.read(page, 'c9')]).toEqual([page[6]]);
    expect(trail.twice).toBe(2);
  });

  it('a dead-letter drain (counted once) is passed every entry', () => {
    const trail = new CursorTrail(undefined, 'counted once');
    trail.read(items(3), undefined);
    expect(trail.read([it_(0), it_(3)], 'c1').size).toBe(0);
    expect(trail.twice).toBe(0);
  });
});

describe('a cursor cut within a page names the repeats after the cut (brief paging23 2)', () => {
  const grant = { user_id: 'usr_1', role_id: 'fx desk,eu', audit_trail_id: 'aud_1' };

  it('cursorWithin writes their keys, each URI-encoded, once each', () => {
    expect(cursorWithin('svc-page:offset=3', 1, [it_(1), { ...it_(1) }, grant, { name: 'no key' }])).toBe(
      'svc-page:offset=3#skip=1&printed=it_1,usr_1%20fx%20desk%2Ceu%20aud_1',
    );
    expect(cursorWithin('c2', 2, [it_(1)])).toBe('svc-page:cursor=c2#skip=2&printed=it_1');
    expect(cursorWithin(undefined, 2, [])).toBe('svc-page:cursor=#skip=2');
  });

  it('the next command leaves them out of that page, uncounted (its command before said them), and a cut again carries them on', () => {
    const cursor = 'svc-page:offset=3#skip=1&printed=it_1,usr_1%20fx%20desk%2Ceu%20aud_1';
    expect(skipOf(cursor)).toBe(1);
    expect(followPage({ path: '/items', query: { cursor } })).toEqual({
      path: '/items',
      query: { offset: 3 },
    });
    const trail = new CursorTrail(cursor);
    const page = [it_(3), it_(4), it_(1), grant, it_(5), it_(6)];
    const repeated = trail.read(page, cursor);
    expect([[...repeated], trail.twice]).toEqual([[it_(1), grant], 0]);
    // --limit 1: it_4 printed; the cut is after it, and both repeats are still ahead on the page.
    const rest = page.slice(1);
    expect(
      cursorWithin(
        cursor,
        1,
        rest.slice(1).filter((item) => repeated.has(item)),
      ),
    ).toBe('svc-page:offset=3#skip=2&printed=it_1,usr_1%20fx%20desk%2Ceu%20aud_1');
    // The same key later in the listing is a repeat this listing saw: counted.
    expect([...trail.read([it_(7), it_(1)], 'svc-page:offset=9')]).toEqual([it_(1)]);
    expect(trail.twice).toBe(1);
  });

  it('a cut names only repeats of items printed; a repeat of an item after the cut too is neither named nor counted (review23a F1)', () => {
    const trail = new CursorTrail();
    const page = [it_(0), it_(1), { ...it_(0) }, { ...it_(1) }];
    const repeated = trail.read(page, undefined);
    expect(trail.twice).toBe(2);
    // --limit 1: it_0 printed, the cut after it; it_1 and its copy are both ahead.
    expect(trail.cut(page.slice(1), repeated)).toEqual([page[2]]);
    expect(trail.twice).toBe(1);
  });

  it('a key that does not decode makes the cursor not svc’s own (sent as it is, as any other)', () => {
    const cursor = 'svc-page:offset=3#skip=1&printed=%E0%A4%A';
    expect(skipOf(cursor)).toBe(0);
    expect(followPage({ path: '/items', query: { cursor } })).toEqual({ path: '/items', query: { cursor } });
  });
});

describe('the keys of 100,000 items (brief paging23 1: ids only)', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  /** What a listing of 100,000 items in pages of 200, each parsed from JSON text as an answer is, leaves held (MB). */
  const held = (item: (n: number) => object): number => {
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const trail = new CursorTrail();
    for (let page = 0; page < 500; page++) {
      const text = JSON.stringify(Array.from({ length: 200 }, (_, i) => item(page * 200 + i)));
      trail.read(JSON.parse(text) as object[], page === 0 ? undefined : `c${page}`);
    }
    gc();
    gc();
    const used = process.memoryUsage().heapUsed - before;
    expect(trail.twice).toBe(0);
    return used / 1024 / 1024;
  };
  const hex = (n: number) => n.toString(16).padStart(24, '0');

  it('users: their ids alone (measured 7 MB), never the items', () => {
    const mb = held((n) => ({
      id: `usr_${hex(n)}`,
      email: `user.${n}@acme.example`,
      display_name: `User ${n}`,
      status: 'active',
      created_at: '2026-01-01T00:00:00Z',
    }));
    expect(mb).toBeLessThan(16);
  });

  it('500,000 users: the keys of the last 100,000 only (SEEN_MAX; measured 10.6 MB; was 33 MB and growing with the list: review23a F4)', () => {
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const trail = new CursorTrail();
    for (let page = 0; page < 2_500; page++) {
      const text = JSON.stringify(
        Array.from({ length: 200 }, (_, i) => ({ id: `usr_${hex(page * 200 + i)}` })),
      );
      trail.read(JSON.parse(text) as object[], page === 0 ? undefined : `c${page}`);
    }
    gc();
    gc();
    expect((process.memoryUsage().heapUsed - before) / 1024 / 1024).toBeLessThan(16);
    expect(SEEN_MAX).toBe(100_000);
  });

  it('grants: their keys as one string each (measured 11 MB; 26 MB as ropes over the fields)', () => {
    const mb = held((n) => ({
      user_id: `usr_${hex(n)}`,
      role_id: 'tenant_viewer',
      audit_trail_id: `aud_${hex(n)}`,
      assigned_at: '2026-01-01T00:00:00Z',
      status: 'active',
    }));
    expect(mb).toBeLessThan(20);
  });
});

describe('keptNote: the warning of the lists a run read whole names them (closing note of session 23)', () => {
  it('one list, several, more than three, none', () => {
    const note = (...lists: Array<[string, number]>) => keptNote(new Map(lists));
    expect(note(['GET /v1/roles', 1])).toBe(
      'the list GET /v1/roles changed while svc read it: 1 item seen twice was kept once',
    );
    expect(note(['GET /v1/roles', 1], ['GET /v1/users', 2])).toBe(
      'the lists GET /v1/roles, GET /v1/users changed while svc read them: 3 items seen twice were kept once',
    );
    expect(note(['a', 1], ['b', 1], ['c', 1], ['d', 1], ['e', 0], ['f', 2])).toBe(
      'the lists a, b, c and 2 more changed while svc read them: 6 items seen twice were kept once',
    );
    expect(note(['a', 1], ['b', 1], ['c', 1])).toBe(
      'the lists a, b, c changed while svc read them: 3 items seen twice were kept once',
    );
    expect(note(['a', 0])).toBeUndefined();
  });
});
