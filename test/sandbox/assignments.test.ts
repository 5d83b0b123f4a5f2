import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { adminGrant, call, useSandbox } from '../helpers/sandbox.js';

// The assignment operations a well-run platform has where the reference is silent (issue 13):
// a role's holders and every assignment of the tenant (paged), and changing an expiry.
const sandbox = useSandbox({ users: 30 });
const TENANT = tenantId('acme-treasury');
let cases = 0;
const admin = () => ({ token: sandbox().adminToken, tenant: TENANT });
const DAY = 24 * 3600 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString().replace(/\.\d+Z$/, 'Z');
const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;

const grant = (userId: string, roleId: string, expiresAt?: string) =>
  adminGrant(sandbox(), TENANT, userId, roleId, expiresAt);

const patch = (userId: string, roleId: string, body: unknown, as = admin()) =>
  call(sandbox(), 'PATCH', `/v1/users/${userId}/roles/${roleId}`, { ...as, body });

describe('GET /v1/role-assignments', () => {
  it("lists a role's holders, oldest first, cursor-paged, active ones unless asked", async () => {
    const role = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      body: { name: 'holders-test', permissions: ['rule.read'], idempotency_key: 'holders-role' },
    });
    const roleId = role.body.id;
    for (let n = 1; n <= 5; n++) await grant(user(n), roleId);
    await call(sandbox(), 'DELETE', `/v1/users/${user(2)}/roles/${roleId}`, admin());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `role_id=${roleId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const r = await call(sandbox(), 'GET', `/v1/role-assignments?${query}`, admin());
      expect(r.status, r.text).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.items.map((a: { user_id: string; status: string }) => `${a.user_id} ${a.status}`));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([1, 3, 4, 5].map((n) => `${user(n)} active`));

    const all = await call(
      sandbox(),
      'GET',
      `/v1/role-assignments?role_id=${roleId}&include_inactive=true`,
      admin(),
    );
    expect(
      all.body.items.map((a: { user_id: string; status: string }) => `${a.user_id} ${a.status}`),
    ).toEqual([`${user(1)} active`, `${user(2)} revoked`, ...[3, 4, 5].map((n) => `${user(n)} active`)]);
  });

  it('lists every assignment of the tenant without a filter, and one user’s with user_id', async () => {
    const everything = await call(sandbox(), 'GET', '/v1/role-assignments?limit=500', admin());
    const roles = new Set(everything.body.items.map((a: { role_id: string }) => a.role_id));
    expect([...roles]).toEqual(expect.arrayContaining(['tenant_admin', 'tenant_viewer', 'tenant_auditor']));
    expect(everything.body.items.every((a: { tenant_id: string }) => a.tenant_id === TENANT)).toBe(true);
    const mine = await call(sandbox(), 'GET', '/v1/role-assignments?user_id=usr_viewer', admin());
    expect(mine.body.items.map((a: { role_id: string }) => a.role_id)).toEqual(['tenant_viewer']);
  });

  it.each([
    ['role_id=no-such-role', 'role no-such-role not found'],
    ['user_id=usr_nobody', 'user usr_nobody not found'],
  ])('answers 404 for an unknown %s, never an empty list', async (query, message) => {
    const r = await call(sandbox(), 'GET', `/v1/role-assignments?${query}`, admin());
    expect([r.status, r.body.error.code, r.body.error.message]).toEqual([404, 'not_found', message]);
  });

  it('refuses a cursor used with other filters', async () => {
    const first = await call(sandbox(), 'GET', '/v1/role-assignments?limit=1', admin());
    const r = await call(
      sandbox(),
      'GET',
      `/v1/role-assignments?limit=1&role_id=tenant_admin&cursor=${first.body.next_cursor}`,
      admin(),
    );
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_cursor']);
  });
});

describe('PATCH /v1/users/{id}/roles/{roleId}', () => {
  it('extends, shortens and makes permanent, each with an audit-trail entry naming the previous expiry', async () => {
    const granted = await grant(user(10), 'tenant_auditor', inDays(1));
    const later = inDays(30);
    const extended = await patch(user(10), 'tenant_auditor', {
      expires_at: later,
      justification: 'audit runs another month',
    });
    expect(extended.status, extended.text).toBe(200);
    expect(extended.body).toMatchObject({
      user_id: user(10),
      role_id: 'tenant_auditor',
      expires_at: later,
      status: 'active',
      audit_trail_id: granted.audit_trail_id,
      updated_by: 'usr_admin',
      update_audit_trail_id: expect.stringMatching(/^aud_/),
    });
    const entry = await call(
      sandbox(),
      'GET',
      `/v1/audit_trail/${extended.body.update_audit_trail_id}`,
      admin(),
    );
    expect(entry.body).toMatchObject({
      action: 'role.assignment_updated',
      actor: 'usr_admin',
      target_type: 'user',
      target_id: user(10),
      role_id: 'tenant_auditor',
      expires_at: later,
      previous_expires_at: granted.expires_at,
      justification: 'audit runs another month',
      changes: ['expires_at'],
      summary: `tenant_auditor of ${user(10)}: until ${granted.expires_at} → until ${later}`,
    });

    const sooner = inDays(2);
    expect(
      (await patch(user(10), 'tenant_auditor', { expires_at: sooner, justification: 'less' })).body
        .expires_at,
    ).toBe(sooner);
    const permanent = await patch(user(10), 'tenant_auditor', {
      expires_at: null,
      justification: 'keeps it',
    });
    expect(permanent.body.expires_at).toBeNull();
    const held = await call(sandbox(), 'GET', `/v1/users/${user(10)}/roles`, admin());
    expect(held.body.items).toEqual([
      expect.objectContaining({ role_id: 'tenant_auditor', expires_at: null }),
    ]);
  });

  it('changes nothing, and writes nothing, when the expiry is the one it has', async () => {
    const expiry = inDays(3);
    const granted = await grant(user(11), 'tenant_viewer', expiry);
    const same = await patch(user(11), 'tenant_viewer', { expires_at: expiry, justification: 'same again' });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ expires_at: expiry, update_audit_trail_id: null });
    const trail = await call(sandbox(), 'GET', `/v1/audit_trail?user_id=${user(11)}`, admin());
    expect(trail.body.items.map((e: { id: string }) => e.id)).toEqual([granted.audit_trail_id]);
  });

  it.each([
    [
      'an expiry in the past',
      { expires_at: '2020-01-01T00:00:00Z', justification: 'late' },
      400,
      'invalid_expiry',
    ],
    ['a blank justification', { expires_at: null, justification: '   ' }, 400, 'justification_required'],
    ['no justification', { expires_at: null }, 400, 'invalid_request'],
    [
      'an unknown field',
      { expires_at: null, justification: 'x', role_id: 'tenant_admin' },
      400,
      'invalid_request',
    ],
  ])('refuses %s', async (_what, body, status, code) => {
    const who = user(20 + ++cases);
    await grant(who, 'tenant_viewer', inDays(1));
    const r = await patch(who, 'tenant_viewer', body);
    expect([r.status, r.body.error.code]).toEqual([status, code]);
  });

  it.each([
    ['a role the user does not hold', 'usr_viewer', 'tenant_lead', 404, 'assignment_not_found'],
    ['an unknown user', 'usr_nobody', 'tenant_viewer', 404, 'not_found'],
    ['an unknown role', 'usr_viewer', 'no-such-role', 404, 'not_found'],
  ])('answers %s', async (_what, userId, roleId, status, code) => {
    const r = await patch(userId, roleId, { expires_at: null, justification: 'nothing to change' });
    expect([r.status, r.body.error.code]).toEqual([status, code]);
  });

  it('needs every permission of the role, as a grant does', async () => {
    const lead = { token: sandbox().issueToken('usr_lead').token, tenant: TENANT };
    const r = await patch(
      'usr_viewer',
      'tenant_viewer',
      { expires_at: null, justification: 'not mine' },
      lead,
    );
    expect([r.status, r.body.error.code]).toEqual([403, 'insufficient_role']);
  });
});
