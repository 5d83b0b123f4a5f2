// review18b R5, R7, R10: rules other servers' answers meet — an assignment status word in another
// case, a permanent grant answered without its expires_at (a server that leaves nulls out), and a
// link cursor with dot segments that would climb out of the base URL's path.
import { describe, expect, it } from 'vitest';
import { assignmentInForce } from '../../src/api/roles.js';
import type { RoleAssignment } from '../../src/api/schemas/roles.js';
import { expiryNotKept, keyHoldEnds } from '../../src/commands/roles/held.js';
import { followPage } from '../../src/http/paging.js';

describe('assignmentInForce', () => {
  it.each<[unknown, string]>([
    [undefined, 'held'],
    [null, 'held'],
    ['active', 'held'],
    ['ACTIVE', 'held'],
    ['Active', 'held'],
    ['revoked', 'ended'],
    ['EXPIRED', 'ended'],
    ['role_deleted', 'ended'],
    ['granted', 'unknown'],
    [5, 'unknown'],
  ])('%j: %s', (status, state) => {
    expect(assignmentInForce(status)).toBe(state);
  });
});

describe('expiryNotKept', () => {
  it('a permanent grant answered without the field, or with null, kept what was asked', () => {
    expect(expiryNotKept(null, undefined)).toBeUndefined();
    expect(expiryNotKept(null, null)).toBeUndefined();
  });

  it('an expiry answered as the same instant is kept; none, or another, is not', () => {
    expect(expiryNotKept('2026-11-26T10:00:00Z', '2026-11-26T10:00:00.000+00:00')).toBeUndefined();
    expect(expiryNotKept('2026-11-26T10:00:00Z', null)).toBeTypeOf('string');
    expect(expiryNotKept('2026-11-26T10:00:00Z', '2026-11-27T10:00:00Z')).toBeTypeOf('string');
  });
});

// review19 F3: a status word svc does not know is neither held nor ended.
describe('keyHoldEnds with an assignment whose status svc does not know', () => {
  const permissions = new Map([
    ['tenant_viewer', ['exception.read']],
    ['tenant_admin', ['role.assign']],
    ['other', ['exception.write']],
  ]);
  const other = { role_id: 'other', expires_at: null } as RoleAssignment;
  const viewer = (status: string) =>
    ({ role_id: 'tenant_viewer', expires_at: null, status }) as unknown as RoleAssignment;
  const moved = { role_id: 'other', expires_at: '2026-12-01T00:00:00Z' };
  it('a permanent hold the move leaves alone: keys stay; the same hold said in an unknown word: they may stop', () => {
    expect(keyHoldEnds(permissions, [other, viewer('active')], moved)).toBe(false);
    expect(keyHoldEnds(permissions, [other, viewer('granted')], moved)).toBe(true);
  });
});

describe('followPage of a link cursor', () => {
  const asked = (cursor: string) => ({ path: '/v1/users', query: { cursor, limit: 50 } });

  it("follows a path as svc writes one, as the server wrote it (no limit of svc's over its own)", () => {
    expect(followPage(asked('svc-page:link=/v1/users?offset=50'))).toEqual({
      path: '/v1/users?offset=50',
      query: {},
    });
  });

  it.each(['/../x', '/v1/../../admin', '/v1/./users', '/v1/%2e%2e/x', '//elsewhere/v1'])(
    'sends %s as the opaque cursor it is, never as a path',
    (path) => {
      const request = asked(`svc-page:link=${path}`);
      expect(followPage(request)).toBe(request);
    },
  );
});
