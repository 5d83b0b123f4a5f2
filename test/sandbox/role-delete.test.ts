import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../src/api/time.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { adminGrant, call, sandboxNow, useSandbox } from '../helpers/sandbox.js';

// Deleting a held role ends its holders' grants: each of them gets an audit entry naming the user
// (so "what happened to U's access" finds it), and grants that had already ended keep the status
// they ended with instead of reading as ended by the deletion.
const sandbox = useSandbox({ users: 3 });
const TREASURY = tenantId('acme-treasury');
const admin = () => ({ token: sandbox().adminToken, tenant: TREASURY });
let keys = 0;
let now = 0;

beforeAll(async () => {
  now = await sandboxNow(sandbox());
});

const grant = (userId: string, roleId: string, expiresAt: string | null) =>
  adminGrant(sandbox(), TREASURY, userId, roleId, expiresAt);

describe('DELETE /v1/roles/{id} of a held role', () => {
  it('writes a role.revoked entry (reason role_deleted) per grant it ends; ended grants keep their status', async () => {
    const created = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      body: { name: 'r2', permissions: ['exception.read'], idempotency_key: `rd-${++keys}` },
    });
    const role = created.body.id as string;
    await grant('usr_bulk_000001', role, isoSeconds(now + 3600_000));
    await grant('usr_bulk_000002', role, isoSeconds(now + 600_000));
    await grant('usr_bulk_000003', role, null);
    expect((await call(sandbox(), 'DELETE', `/v1/users/usr_bulk_000003/roles/${role}`, admin())).status).toBe(
      200,
    );
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 1200 } });

    const deleted = await call(sandbox(), 'DELETE', `/v1/roles/${role}`, admin());
    expect(deleted.status, deleted.text).toBe(200);

    const trail = async (user: string) =>
      (await call(sandbox(), 'GET', `/v1/audit_trail?user_id=${user}`, admin())).body.items.map((e: any) => [
        e.action,
        e.reason ?? null,
        e.summary,
      ]);
    expect((await trail('usr_bulk_000001')).at(-1)).toEqual([
      'role.revoked',
      'role_deleted',
      'r2 revoked from usr_bulk_000001: the role was deleted',
    ]);
    // Ended before the deletion (expired; revoked): nothing more to say about them.
    expect((await trail('usr_bulk_000002')).map((e: string[]) => e[0])).toEqual(['role.assigned']);
    expect((await trail('usr_bulk_000003')).map((e: string[]) => e[0])).toEqual([
      'role.assigned',
      'role.revoked',
    ]);

    const all = await call(
      sandbox(),
      'GET',
      `/v1/role-assignments?role_id=${role}&include_inactive=true`,
      admin(),
    );
    expect(all.body.items.map((a: any) => [a.user_id, a.status])).toEqual([
      ['usr_bulk_000001', 'role_deleted'],
      ['usr_bulk_000002', 'expired'],
      ['usr_bulk_000003', 'revoked'],
    ]);
  });
});
