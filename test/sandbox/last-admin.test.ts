import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../src/api/time.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, sandboxNow, useSandbox } from '../helpers/sandbox.js';

// A change cannot make a tenant's administration end sooner: a time-bound tenant_admin grant does
// not stand in for a permanent one (revoking the permanent grant while the only other expires in
// 15 minutes left the tenant with no administrator once it expired).
const sandbox = useSandbox({ users: 5 });
const LABS = tenantId('acme-labs');
const MINUTE = 60_000;
let keys = 0;
const key = () => `last-admin-${++keys}`;
const admin = () => ({ token: sandbox().adminToken, tenant: LABS });
const as = (userId: string) => ({
  token: sandbox().issueToken(userId, { expiresInSeconds: 86_400 }).token,
  tenant: LABS,
});
let now = 0;
const inMinutes = (minutes: number) => isoSeconds(now + minutes * MINUTE);
const refusal = (r: { status: number; body: any }) => [r.status, r.body.error?.code, r.body.error?.message];

beforeAll(async () => {
  now = await sandboxNow(sandbox());
});

const grant = async (userId: string, expiresAt: string | null, caller = admin()) => {
  const r = await call(sandbox(), 'POST', `/v1/users/${userId}/roles`, {
    ...caller,
    body: {
      role_id: 'tenant_admin',
      ...(expiresAt ? { expires_at: expiresAt } : {}),
      justification: 'cover',
      idempotency_key: key(),
    },
  });
  expect(r.status, r.text).toBe(201);
};
const revoke = (userId: string, caller = admin()) =>
  call(sandbox(), 'DELETE', `/v1/users/${userId}/roles/tenant_admin`, caller);
const patch = (userId: string, expiresAt: string | null, caller: ReturnType<typeof as>) =>
  call(sandbox(), 'PATCH', `/v1/users/${userId}/roles/tenant_admin`, {
    ...caller,
    body: { expires_at: expiresAt, justification: 'shorten' },
  });

describe('the last tenant_admin: a change cannot make the administration end sooner', () => {
  it('refuses to revoke the permanent grant while the other ends in 15 minutes, naming when and what to do', async () => {
    const cover = inMinutes(15);
    await grant('usr_bulk_000001', cover);
    expect(refusal(await revoke('usr_admin'))).toEqual([
      409,
      'last_tenant_admin',
      `revoking usr_admin's tenant_admin would leave acme-labs without an administrator after ${cover}, when every other tenant_admin grant has ended; first grant tenant_admin permanently to someone else`,
    ]);
    // Revoking the grant that ends first shortens nothing.
    expect((await revoke('usr_bulk_000001')).status).toBe(200);
  });

  it('refuses to move the expiry of the grant that ends last sooner than it ends, by one whose own grant ends earlier', async () => {
    const bound = inMinutes(60);
    await grant('usr_bulk_000002', bound);
    const shorter = inMinutes(30);
    expect(refusal(await patch('usr_admin', shorter, as('usr_bulk_000002')))).toEqual([
      409,
      'last_tenant_admin',
      `moving the expiry of usr_admin's tenant_admin to ${shorter} would leave acme-labs without an administrator after ${bound}, when every other tenant_admin grant has ended; first grant tenant_admin permanently to someone else`,
    ]);
    expect(refusal(await patch('usr_admin', inMinutes(120), as('usr_bulk_000002')))[1]).toBe(
      'last_tenant_admin',
    );
  });

  it('allows revoking a grant that ends sooner than another, and one of two permanent grants', async () => {
    await grant('usr_bulk_000003', inMinutes(600));
    await grant('usr_bulk_000004', null);
    expect((await revoke('usr_bulk_000003')).status).toBe(200);
    expect((await revoke('usr_admin')).status).toBe(200);
    // usr_bulk_000004 now holds the only permanent grant; a time-bound one ending later is refused
    // until it is permanent too, and the message says until when it must run.
    const later = inMinutes(900);
    await grant('usr_bulk_000005', later, as('usr_bulk_000004'));
    expect(refusal(await revoke('usr_bulk_000004', as('usr_bulk_000005')))).toEqual([
      409,
      'last_tenant_admin',
      `revoking usr_bulk_000004's tenant_admin would leave acme-labs without an administrator after ${later}, when every other tenant_admin grant has ended; first grant tenant_admin permanently to someone else`,
    ]);
  });

  it('allows revoking a time-bound grant while a permanent one stays', async () => {
    expect((await revoke('usr_bulk_000005', as('usr_bulk_000004'))).status).toBe(200);
  });
});
