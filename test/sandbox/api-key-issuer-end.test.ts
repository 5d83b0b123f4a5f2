import { describe, expect, it } from 'vitest';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Exploratory test s13 (F3): a key acted while its issuer held its role's permissions at all, so
// once the issuer's permanent tenant_admin was given an end (an admin wound down), or a former
// issuer got a just-in-time grant, the key still held everything permanently: through it the
// issuer granted permanently, moved an expiry to never and widened a role held permanently — each
// refused to them directly. A key is minted only by a caller who holds its role's permissions
// without an end date, and now acts only while its issuer still does (401 saying until when).
const { sandbox, TREASURY, key, user, admin, as, inHours, customRole, refusal } =
  useGrantRules('key-issuer-end');

async function asAdmin(method: string, path: string, body?: Record<string, unknown>) {
  const r = await call(sandbox(), method, path, { ...admin(), ...(body ? { body } : {}) });
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
}

const grant = (userId: string, roleId: string, expiresAt?: string) =>
  asAdmin('POST', `/v1/users/${userId}/roles`, {
    role_id: roleId,
    justification: 'key issuer end',
    idempotency_key: key(),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  });

const windDown = (userId: string, until: string) =>
  asAdmin('PATCH', `/v1/users/${userId}/roles/tenant_admin`, {
    expires_at: until,
    justification: 'wind the admin down',
  });

/** A permanent tenant_admin who issues a service-role key; the key's credentials. */
async function issuer(userId: string) {
  await grant(userId, 'tenant_admin');
  const issued = await call(sandbox(), 'POST', `/v1/tenants/${TREASURY}/api-keys`, {
    ...as(userId),
    body: {
      kind: 'service_role',
      name: 'sync',
      justification: 'nightly sync job key',
      idempotency_key: key(),
    },
  });
  expect(issued.status, issued.text).toBe(201);
  return { token: issued.body.key as string, tenant: TREASURY };
}

const STOPPED = (userId: string, until: string) => [
  401,
  'invalid_token',
  `this API key acts only while ${userId}, who issued it, holds every permission of tenant_admin without an end date; ` +
    `they hold them only until ${until}: have someone who holds them without an end date issue a new key`,
];

const OPS = [
  'account.write',
  'reconciliation.write',
  'role.assign',
  'role.manage',
  'role.read',
  'webhook.manage',
];

const assignments = async (userId: string) =>
  (await call(sandbox(), 'GET', `/v1/users/${userId}/roles`, admin())).body.items.map(
    (a: { role_name: string; expires_at: string | null }) => [a.role_name, a.expires_at],
  );

describe('a key stops when its issuer’s hold gets an end date', () => {
  it('grants nothing once the issuer is wound down, though their grant has not ended yet', async () => {
    const ops = await customRole('ops-shortened', OPS);
    const byKey = await issuer(user(1));
    const until = inHours(1);
    await windDown(user(1), until);
    const direct = await call(sandbox(), 'POST', `/v1/users/${user(2)}/roles`, {
      ...as(user(1)),
      body: { role_id: ops.id, justification: 'permanent ops', idempotency_key: key() },
    });
    expect(refusal(direct)[0]).toBe(403);
    const through = await call(sandbox(), 'POST', `/v1/users/${user(2)}/roles`, {
      ...byKey,
      body: { role_id: ops.id, justification: 'permanent ops', idempotency_key: key() },
    });
    expect(refusal(through)).toEqual(STOPPED(user(1), until));
    expect(await assignments(user(2))).toEqual([]);
    expect(refusal(await call(sandbox(), 'GET', '/v1/me', byKey))).toEqual(STOPPED(user(1), until));
  });

  it('does not revive when its former issuer is given a just-in-time grant; a permanent one revives it', async () => {
    const ops = await customRole('ops-revived', OPS);
    const byKey = await issuer(user(3));
    await asAdmin('DELETE', `/v1/users/${user(3)}/roles/tenant_admin`);
    expect((await call(sandbox(), 'GET', '/v1/me', byKey)).status).toBe(401);
    const incident = inHours(0.25);
    await grant(user(3), 'tenant_admin', incident);
    const revived = await call(sandbox(), 'POST', `/v1/users/${user(4)}/roles`, {
      ...byKey,
      body: { role_id: ops.id, justification: 'incident ops', idempotency_key: key() },
    });
    expect(refusal(revived)).toEqual(STOPPED(user(3), incident));
    expect(await assignments(user(4))).toEqual([]);
    await asAdmin('PATCH', `/v1/users/${user(3)}/roles/tenant_admin`, {
      expires_at: null,
      justification: 'admin again for good',
    });
    expect((await call(sandbox(), 'GET', '/v1/me', byKey)).status).toBe(200);
  });

  it('does not widen a role held permanently through the key', async () => {
    const jit3 = await customRole('jit3', ['exception.read']);
    await grant(user(5), jit3.id);
    const byKey = await issuer(user(6));
    const until = inHours(0.25);
    await windDown(user(6), until);
    const widen = await call(sandbox(), 'PATCH', `/v1/roles/${jit3.id}`, {
      ...byKey,
      body: { add_permissions: ['account.write'] },
    });
    expect(refusal(widen)).toEqual(STOPPED(user(6), until));
    expect((await call(sandbox(), 'GET', `/v1/roles/${jit3.id}`, admin())).body.permissions).toEqual([
      'exception.read',
    ]);
  });

  it('does not move an expiry to never through the key', async () => {
    const ops = await customRole('ops-forever', OPS);
    const ends = inHours(1 / 6);
    await grant(user(7), ops.id, ends);
    const byKey = await issuer(user(8));
    const until = inHours(1);
    await windDown(user(8), until);
    const forever = await call(sandbox(), 'PATCH', `/v1/users/${user(7)}/roles/${ops.id}`, {
      ...byKey,
      body: { expires_at: null, justification: 'keep it forever' },
    });
    expect(refusal(forever)).toEqual(STOPPED(user(8), until));
    expect(await assignments(user(7))).toEqual([['ops-forever', ends]]);
  });
});
