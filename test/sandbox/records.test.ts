import { describe, expect, it } from 'vitest';
import { mergePatch } from '../../src/api/merge-patch.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const tenant = tenantId('acme-treasury');
// Tokens are minted per request: one test moves the sandbox clock 30 days, past the admin token's life.
const admin = () => sandbox().issueToken('usr_admin').token;

describe('JSON Merge Patch (RFC 7396 appendix A)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });
});

describe('the generic record surface', () => {
  const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    call(sandbox(), method, path, {
      token: admin(),
      tenant,
      ...(body === undefined ? {} : { body }),
      ...(headers ? { headers } : {}),
    });

  it('creates, patches (merge patch), soft-deletes, hides, and purges after 30 days', async () => {
    const created = await req('POST', '/v1/reconciliations', {
      name: 'EUR',
      limits: { daily: 10, weekly: 50 },
      note: 'x',
      idempotency_key: 'l-1',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'EUR', soft_delete: false, deleted_at: null, purge_at: null });
    const id = created.body.id as string;

    const patched = await req('PATCH', `/v1/reconciliations/${id}`, {
      limits: { daily: 20, weekly: null },
      note: null,
      owner: 'ops',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, name: 'EUR', limits: { daily: 20 }, owner: 'ops' });
    expect(patched.body).not.toHaveProperty('note');
    expect(patched.body.limits).not.toHaveProperty('weekly');
    expect(patched.body.created_at).toBe(created.body.created_at);

    const viaMergeType = await fetch(`${sandbox().url}/v1/reconciliations/${id}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${admin()}`,
        'x-tenant-id': tenant,
        'content-type': 'application/merge-patch+json',
      },
      body: JSON.stringify({ status: 'open' }),
    });
    expect(viaMergeType.status).toBe(200);

    const deleted = await req('DELETE', `/v1/reconciliations/${id}`);
    expect(deleted.body).toMatchObject({ soft_delete: true });
    expect(Date.parse(deleted.body.purge_at) - Date.parse(deleted.body.deleted_at)).toBe(
      30 * 24 * 3600 * 1000,
    );
    expect((await req('DELETE', `/v1/reconciliations/${id}`)).body.deleted_at).toBe(deleted.body.deleted_at);
    expect(
      (await req('GET', '/v1/reconciliations')).body.items.map((r: { id: string }) => r.id),
    ).not.toContain(id);
    expect(
      (await req('GET', '/v1/reconciliations?include_deleted=true')).body.items.map(
        (r: { id: string }) => r.id,
      ),
    ).toContain(id);
    expect((await req('GET', `/v1/reconciliations/${id}`)).status).toBe(200);
    const refused = await req('PATCH', `/v1/reconciliations/${id}`, { name: 'again' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('record_deleted');

    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 30 * 24 * 3600 - 60 } });
    expect((await req('GET', `/v1/reconciliations/${id}`)).status).toBe(200);
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 61 } });
    expect((await req('GET', `/v1/reconciliations/${id}`)).status).toBe(404);
    expect((await req('GET', '/v1/reconciliations?include_deleted=true')).body.items).toEqual([]);
  });

  it.each([
    ['POST', { id: 'mine', idempotency_key: 'r-1' }, 'id'],
    ['POST', { soft_delete: true, idempotency_key: 'r-2' }, 'soft_delete'],
    ['PATCH', { created_at: '2020-01-01T00:00:00Z' }, 'created_at'],
  ])('refuses to %s fields the sandbox owns (%j)', async (method, body, field) => {
    const target =
      method === 'POST'
        ? '/v1/reconciliations'
        : `/v1/reconciliations/${(await req('POST', '/v1/reconciliations', { idempotency_key: `t-${field}` })).body.id}`;
    const response = await req(method, target, body);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ field, message: 'is read-only' }]);
  });

  it.each([
    ['{}', {}],
    ['the values it has', { name: 'Same', limits: { daily: 10 }, tags: ['a', 'b'] }],
    ['a null for a field it lacks', { missing: null }],
    ['an idempotency_key alone', { idempotency_key: 'p-1' }],
  ])('a PATCH of %s changes nothing: updated_at stays (RFC 7396 no-op)', async (_what, patch) => {
    const created = await req('POST', '/v1/accounts', {
      name: 'Same',
      limits: { daily: 10 },
      tags: ['a', 'b'],
      idempotency_key: `same-${JSON.stringify(patch)}`,
    });
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 5 } });
    const patched = await req('PATCH', `/v1/accounts/${created.body.id}`, patch);
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual(created.body);
    const changed = await req('PATCH', `/v1/accounts/${created.body.id}`, { tags: ['b', 'a'] });
    expect(changed.body.updated_at).not.toBe(created.body.updated_at);
    expect(changed.body.tags).toEqual(['b', 'a']);
  });

  it('names the surface a cursor of another surface was issued for', async () => {
    for (const n of [1, 2]) await req('POST', '/v1/rules', { n, idempotency_key: `cur-${n}` });
    const page = await req('GET', '/v1/rules?limit=1');
    expect(page.body.next_cursor).toEqual(expect.any(String));
    const refused = await req('GET', `/v1/accounts?cursor=${page.body.next_cursor}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_cursor',
      message:
        'the cursor was issued for /v1/rules, not /v1/accounts; use it with GET /v1/rules, or list /v1/accounts without a cursor',
      details: [{ field: 'cursor', message: 'belongs to /v1/rules' }],
    });
    const deleted = await req('GET', '/v1/rules?limit=1&include_deleted=true');
    const filters = await req('GET', `/v1/rules?cursor=${deleted.body.next_cursor}`);
    expect(filters.body.error.message).toBe(
      'the cursor was issued for different filters; repeat the same filters',
    );
  });

  it('keeps tenants apart', async () => {
    const mine = await req('POST', '/v1/reconciliations', { idempotency_key: 'iso-1' });
    const other = await call(sandbox(), 'GET', `/v1/reconciliations/${mine.body.id}`, {
      token: admin(),
      tenant: tenantId('acme-labs'),
    });
    expect(other.status).toBe(404);
  });
});

describe('tenant API keys', () => {
  const create = (body: unknown, token = admin(), path = `/v1/tenants/${tenant}/api-keys`) =>
    call(sandbox(), 'POST', path, { token, body });

  it('issues a key shown once, usable at once, bound to its tenant, revocable', async () => {
    const created = await create({ kind: 'publishable', name: 'dash', idempotency_key: 'k-1' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'publishable',
      name: 'dash',
      tenant_id: tenant,
      revoked_at: null,
    });
    expect(created.body.key).toMatch(/^svc_pk_/);
    expect(created.body.warning).toMatch(/shown only once/);
    const key = created.body.key as string;
    const me = await call(sandbox(), 'GET', '/v1/me', { token: key });
    expect(me.body).toMatchObject({ type: 'api_key', id: created.body.id, tenant_id: tenant });
    const listed = await call(sandbox(), 'GET', `/v1/tenants/${tenant}/api-keys`, {
      token: admin(),
    });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(listed.body.items[0]).toMatchObject({ id: created.body.id, prefix: key.slice(0, 10) });
    const writes = await call(sandbox(), 'POST', '/v1/reconciliations', {
      token: key,
      tenant,
      body: { idempotency_key: 'pk-w' },
    });
    expect(writes.status).toBe(403);
    const revoked = await call(sandbox(), 'DELETE', `/v1/tenants/${tenant}/api-keys/${created.body.id}`, {
      token: admin(),
    });
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await call(sandbox(), 'GET', '/v1/me', { token: key })).status).toBe(401);
  });

  it('needs a justification for a service-role key and logs every call made with it', async () => {
    const refused = await create({ kind: 'service_role', idempotency_key: 'k-2' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('justification_required');
    const created = await create({
      kind: 'service_role',
      justification: 'nightly ledger sync',
      idempotency_key: 'k-3',
    });
    expect(created.body.key).toMatch(/^svc_sk_/);
    const write = await call(sandbox(), 'POST', '/v1/reconciliations', {
      token: created.body.key,
      tenant,
      body: { idempotency_key: 'sk-w' },
    });
    expect(write.status).toBe(201);
    expect(sandbox().state.securityEvents.at(-1)).toMatchObject({
      kind: 'service_role_call',
      actor: created.body.id,
      detail: 'POST /v1/reconciliations; justification: nightly ledger sync',
    });
  });

  it.each([
    ['a viewer', () => sandbox().issueToken('usr_viewer').token, 403, 'insufficient_role'],
    ['a tenant not in the token', () => sandbox().issueToken('usr_bruce').token, 403, 'tenant_forbidden'],
  ])('refuses %s', async (_name, token, status, code) => {
    const response = await create({ kind: 'publishable', idempotency_key: `x-${code}` }, token());
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
  });

  it('refuses API keys minting API keys', async () => {
    const key = (
      await create({ kind: 'service_role', justification: 'automation account', idempotency_key: 'k-4' })
    ).body.key;
    const response = await create({ kind: 'publishable', idempotency_key: 'k-5' }, key);
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('user_required');
  });
});
