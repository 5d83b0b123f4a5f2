/**
 * liveThenLatestDeleted orders the roles one name has stood for: live first, then the latest
 * deleted first, by instant however the server wrote each time (`Z`, `+00:00`, another offset,
 * milliseconds or not: serverTime), never as text, where `…T10:00:00Z` sorted after
 * `…T10:00:00.500+00:00` and `…T12:00:00+02:00` (10:00 UTC) after `…T11:00:00Z`.
 */
import { describe, expect, it } from 'vitest';
import { liveThenLatestDeleted } from '../../src/platform/role-ref.js';

const order = (roles: Array<{ id: string; deleted_at?: string | null }>) =>
  [...roles].sort(liveThenLatestDeleted).map((r) => r.id);

describe('liveThenLatestDeleted', () => {
  it('orders deletions by instant, not by the text of each time', () => {
    expect(
      order([
        { id: 'at-10:00Z', deleted_at: '2026-11-25T10:00:00Z' },
        { id: 'at-10:00:00.5', deleted_at: '2026-11-25T10:00:00.500+00:00' },
        { id: 'live', deleted_at: null },
        { id: 'at-10:00+02 (08:00Z)', deleted_at: '2026-11-25T10:00:00+02:00' },
        { id: 'at-11:00Z', deleted_at: '2026-11-25T11:00:00Z' },
        { id: 'at-12:00+02 (10:00Z, the same instant as 10:00Z)', deleted_at: '2026-11-25T12:00:00+02:00' },
      ]),
    ).toEqual([
      'live',
      'at-11:00Z',
      'at-10:00:00.5',
      'at-10:00Z',
      'at-12:00+02 (10:00Z, the same instant as 10:00Z)',
      'at-10:00+02 (08:00Z)',
    ]);
  });

  it('puts a deleted_at that is not a time after every time, among themselves as text', () => {
    expect(
      order([
        { id: 'b', deleted_at: 'yesterday' },
        { id: 'a', deleted_at: 'sometime' },
        { id: 'dated', deleted_at: '2026-01-01T00:00:00Z' },
        { id: 'live' },
      ]),
    ).toEqual(['live', 'dated', 'b', 'a']);
  });
});
