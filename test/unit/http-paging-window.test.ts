// The window of keys CursorTrail keeps to find repeats (SEEN_MAX), at its edges: each key is held
// once however often it comes, so the oldest dropped is the oldest read, and a key still within the
// window is still found (session 25's mutation run of src/http/paging.ts).
import { describe, expect, it } from 'vitest';
import { CursorTrail } from '../../src/http/paging.js';

const it_ = (n: number) => ({ id: `it_${n}` });

describe('CursorTrail: the window holds each key once', () => {
  it('an item twice among the items a page was asked again to skip is kept once: the next key read does not push it out of a window of 2, and its repeat on the next page is left out', () => {
    const trail = new CursorTrail(undefined, 'stop', 2);
    // The page asked again with its first two items printed by the command before: it_0 twice among them.
    expect([...trail.read([it_(0), it_(0), it_(1)], 'svc-page:offset=0#skip=2')]).toEqual([]);
    expect([...trail.read([it_(0), it_(2)], 'svc-page:offset=3')]).toEqual([it_(0)]);
    expect(trail.twice).toBe(1);
  });
});
