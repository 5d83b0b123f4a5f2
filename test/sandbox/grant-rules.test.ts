import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// Holes found by an independent tester after issue 10, one block each.
const sandbox = useSandbox({ users: 20 });
const TREASURY = tenantId('acme-treasury');
let keys = 0;
const key = () => `grant-rules-${++keys}`;
const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;
const admin = () => ({ token: sandbox().adminToken, tenant: TREASURY });
const as = (userId: string) => ({
  token: sandbox().issueToken(userId, { expiresInSeconds: 86_400 }).token,
  tenant: TREASURY,
});
const post = (userId: string, body: Record<string, unknown>, caller = admin()) =>
  call(sandbox(), 'POST', `/v1/users/${userId}/roles`, {
    ...caller,
    body: { justification: 'grant rules', idempotency_key: key(), ...body },
  });
async function grant(userId: string, roleId: string) {
  const r = await post(userId, { role_id: roleId });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

async function customRole(name: string, permissions: string[]) {
  const r = await call(sandbox(), 'POST', '/v1/roles', {
    ...admin(),
    body: { name, permissions, idempotency_key: key() },
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

const refusal = (r: { status: number; body: any }) => [r.status, r.body.error?.code, r.body.error?.message];

describe('role.manage takes away only what it holds', () => {
  it('refuses narrowing or deleting a role that carries permissions the caller lacks', async () => {
    const keepers = await customRole('key-keepers', ['api_key.manage', 'webhook.manage', 'exception.read']);
    const managers = await customRole('role-keepers', ['role.manage', 'role.read', 'exception.read']);
    await grant(user(5), managers.id);
    const manager = as(user(5));
    const change = (body: unknown) =>
      call(sandbox(), 'PATCH', `/v1/roles/${keepers.id}`, { ...manager, body });

    const TAKE = 'you can only take out of a role permissions you hold yourself; you lack';
    expect(refusal(await change({ remove_permissions: ['api_key.manage'] }))).toEqual([
      403,
      'insufficient_permission',
      `${TAKE} api_key.manage`,
    ]);
    expect(refusal(await change({ permissions: ['exception.read'] }))).toEqual([
      403,
      'insufficient_permission',
      `${TAKE} api_key.manage, webhook.manage`,
    ]);
    const removed = await call(sandbox(), 'DELETE', `/v1/roles/${keepers.id}`, manager);
    expect(refusal(removed)).toEqual([
      403,
      'insufficient_permission',
      'you can only delete a role whose permissions you all hold yourself; you lack api_key.manage, webhook.manage',
    ]);
    const unchanged = await call(sandbox(), 'GET', `/v1/roles/${keepers.id}`, admin());
    expect([unchanged.body.permissions, unchanged.body.deleted_at]).toEqual([
      ['api_key.manage', 'exception.read', 'webhook.manage'],
      null,
    ]);

    // Within what it holds, role.manage still narrows and deletes.
    const readers = await customRole('reader-keepers', ['exception.read', 'role.read']);
    const narrowed = await call(sandbox(), 'PATCH', `/v1/roles/${readers.id}`, {
      ...manager,
      body: { remove_permissions: ['exception.read'] },
    });
    expect([narrowed.status, narrowed.body.permissions]).toEqual([200, ['role.read']]);
    const deleted = await call(sandbox(), 'DELETE', `/v1/roles/${readers.id}`, manager);
    expect(deleted.status, deleted.text).toBe(200);
  });
});
