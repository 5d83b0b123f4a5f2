import { describe, expect, it } from 'vitest';
import { DEMO_ORG, OTHER_ORG, tenantId } from '../../src/sandbox/seed.js';
import { codeTokens, createClient } from '../helpers/oauth.js';
import { call, sandboxNow, useSandbox } from '../helpers/sandbox.js';

// The failures found when the sandbox was tried as an attacker would (issue 10), one test each.
const sandbox = useSandbox({ users: 10 });
const TREASURY = tenantId('acme-treasury');
const LABS = tenantId('acme-labs');
const WAYNE = tenantId('wayne-clearing');
let keys = 0;
const key = () => `authz-${++keys}`;
const admin = () => ({ token: sandbox().issueToken('usr_admin', { expiresInSeconds: 86_400 }).token });
const tokenOf = (user: string) => sandbox().issueToken(user, { expiresInSeconds: 86_400 }).token;

async function grant(user: string, roleId: string, extra: Record<string, unknown> = {}) {
  const r = await call(sandbox(), 'POST', `/v1/users/${user}/roles`, {
    ...admin(),
    tenant: TREASURY,
    body: { role_id: roleId, idempotency_key: key(), ...extra },
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

async function customRole(name: string, permissions: string[]) {
  const r = await call(sandbox(), 'POST', '/v1/roles', {
    ...admin(),
    tenant: TREASURY,
    body: { name, permissions, idempotency_key: key() },
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

describe('privilege escalation through role.manage', () => {
  it('refuses every step of the chain: widen own role, grant tenant_admin, mint a key, revoke the admin', async () => {
    const manager = await customRole('role-managers', ['role.manage']);
    await grant('usr_bulk_000001', manager.id);
    const attacker = { token: tokenOf('usr_bulk_000001'), tenant: TREASURY };

    const widen = await call(sandbox(), 'PATCH', `/v1/roles/${manager.id}`, {
      ...attacker,
      body: { add_permissions: ['role.assign', 'api_key.manage', 'reconciliation.write'] },
    });
    // Widening a role one holds is granting oneself what it adds: refused whatever one holds.
    expect([widen.status, widen.body.error?.code]).toEqual([403, 'self_assignment']);
    expect(widen.body.error.message).toBe(
      'you cannot put permissions into a role you hold; ask another administrator',
    );
    const replace = await call(sandbox(), 'PATCH', `/v1/roles/${manager.id}`, {
      ...attacker,
      body: { permissions: ['role.manage', 'api_key.manage'] },
    });
    expect([replace.status, replace.body.error?.code]).toEqual([403, 'self_assignment']);
    const create = await call(sandbox(), 'POST', '/v1/roles', {
      ...attacker,
      body: { name: 'everything', permissions: ['role.manage', 'role.assign'], idempotency_key: key() },
    });
    expect([create.status, create.body.error?.code]).toEqual([403, 'insufficient_permission']);
    const unchanged = await call(sandbox(), 'GET', `/v1/roles/${manager.id}`, {
      ...admin(),
      tenant: TREASURY,
    });
    expect(unchanged.body.permissions).toEqual(['role.manage']);

    const selfGrant = await call(sandbox(), 'POST', '/v1/users/usr_bulk_000001/roles', {
      ...attacker,
      body: { role_id: 'tenant_admin', idempotency_key: key() },
    });
    expect(selfGrant.status).toBe(403);
    const mint = await call(sandbox(), 'POST', `/v1/tenants/${TREASURY}/api-keys`, {
      ...attacker,
      body: { kind: 'service_role', justification: 'escalation attempt', idempotency_key: key() },
    });
    expect(mint.status).toBe(403);
    const revokeAdmin = await call(sandbox(), 'DELETE', '/v1/users/usr_admin/roles/tenant_admin', attacker);
    expect(revokeAdmin.status).toBe(403);
    const me = await call(sandbox(), 'GET', '/v1/me', attacker);
    expect(me.body.tenants).toEqual([
      expect.objectContaining({ slug: 'acme-treasury', role: 'role-managers' }),
    ]);
  });

  it('still lets role.manage change a role within the permissions the caller holds', async () => {
    const editor = await customRole('role-editors', ['role.manage', 'exception.read', 'exception.write']);
    await grant('usr_bulk_000002', editor.id);
    const caller = { token: tokenOf('usr_bulk_000002'), tenant: TREASURY };
    const made = await call(sandbox(), 'POST', '/v1/roles', {
      ...caller,
      body: { name: 'exception-readers', permissions: ['exception.read'], idempotency_key: key() },
    });
    expect(made.status, made.text).toBe(201);
    const widened = await call(sandbox(), 'PATCH', `/v1/roles/${made.body.id}`, {
      ...caller,
      body: { add_permissions: ['exception.write'] },
    });
    expect(widened.status, widened.text).toBe(200);
    expect(widened.body.permissions).toEqual(['exception.read', 'exception.write']);
  });

  it('refuses API keys with more authority than their creator', async () => {
    const keyMinter = await customRole('key-minters', ['api_key.manage', 'account.read']);
    await grant('usr_bulk_000003', keyMinter.id);
    const caller = { token: tokenOf('usr_bulk_000003') };
    const path = `/v1/tenants/${TREASURY}/api-keys`;
    const service = await call(sandbox(), 'POST', path, {
      ...caller,
      body: { kind: 'service_role', justification: 'nightly ledger sync', idempotency_key: key() },
    });
    expect([service.status, service.body.error?.code]).toEqual([403, 'insufficient_permission']);
    const publishable = await call(sandbox(), 'POST', path, {
      ...caller,
      body: { kind: 'publishable', idempotency_key: key() },
    });
    expect([publishable.status, publishable.body.error?.code]).toEqual([403, 'insufficient_permission']);
  });
});

describe('revocation revokes', () => {
  const reads = async (token: string) => ({
    records: (await call(sandbox(), 'GET', '/v1/reconciliations', { token, tenant: TREASURY })).status,
    me: (await call(sandbox(), 'GET', '/v1/me', { token })).body,
    tenants: (await call(sandbox(), 'GET', '/v1/tenants', { token })).status,
  });

  it('a revoked assignment stops the token that was issued before it', async () => {
    await grant('usr_bulk_000004', 'tenant_admin');
    const token = tokenOf('usr_bulk_000004');
    expect((await reads(token)).records).toBe(200);
    const revoked = await call(sandbox(), 'DELETE', '/v1/users/usr_bulk_000004/roles/tenant_admin', {
      ...admin(),
      tenant: TREASURY,
    });
    expect(revoked.status, revoked.text).toBe(200);
    const after = await reads(token);
    expect(after.records).toBe(403);
    expect(after.me.tenants).toEqual([]);
    expect(after.tenants).toBe(403);
  });

  it('an expired assignment stops it too (the sandbox clock)', async () => {
    const now = await sandboxNow(sandbox());
    await grant('usr_bulk_000005', 'tenant_viewer', { expires_at: new Date(now + 60_000).toISOString() });
    const token = tokenOf('usr_bulk_000005');
    expect((await reads(token)).records).toBe(200);
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 120 } });
    const after = await reads(token);
    expect(after.records).toBe(403);
    expect(after.me.tenants).toEqual([]);
    expect(after.tenants).toBe(403);
  });

  it.each([
    ['usr_compliance', 'GET', 403],
    ['usr_compliance', 'POST', 403],
    ['usr_rule_author', 'GET', 403],
    ['usr_ai_prompter', 'POST', 403],
    ['usr_viewer', 'GET', 200],
    ['usr_analyst', 'POST', 403],
    ['usr_auditor', 'GET', 200],
  ])(
    'the record surface checks permissions: %s %s /v1/reconciliations → %i',
    async (user, method, status) => {
      const r = await call(sandbox(), method, '/v1/reconciliations', {
        token: tokenOf(user),
        tenant: TREASURY,
        ...(method === 'POST' ? { body: { name: 'March close', idempotency_key: key() } } : {}),
      });
      expect(r.status, r.text).toBe(status);
    },
  );
});

describe('OAuth clients stay in their tenant', () => {
  it('a vendor client approved by an org_admin lists only its own tenant, even with X-SVC-Org-Id', async () => {
    const client = await createClient(sandbox(), { scopes: ['read:tenants', 'read:reconciliations'] });
    const tokens = await codeTokens(sandbox(), client, { user: 'usr_admin' });
    const token = tokens.body.access_token as string;
    const listed = await call(sandbox(), 'GET', '/v1/tenants', { token, org: DEMO_ORG });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items.map((t: { id: string }) => t.id)).toEqual([TREASURY]);
    const elsewhere = await call(sandbox(), 'GET', '/v1/reconciliations', { token, tenant: LABS });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([403, 'tenant_forbidden']);
    const outOfScope = await call(sandbox(), 'GET', '/v1/exceptions', { token, tenant: TREASURY });
    expect([outOfScope.status, outOfScope.body.error.code]).toEqual([403, 'insufficient_scope']);
    const inScope = await call(sandbox(), 'GET', '/v1/reconciliations', { token, tenant: TREASURY });
    expect(inScope.status).toBe(200);
  });
});

describe('refused attempts leave a trace', () => {
  type Attempt = { path: string; tenant?: string; org?: string };
  it.each<[string, Attempt, string]>([
    [
      'another tenant of the organisation',
      { tenant: LABS, path: '/v1/reconciliations' },
      'cross_tenant_denied',
    ],
    ['a tenant of another organisation', { tenant: WAYNE, path: '/v1/reconciliations' }, 'cross_org_denied'],
    ['another organisation', { org: OTHER_ORG, path: '/v1/tenants' }, 'cross_org_denied'],
    ['API keys of another tenant', { path: `/v1/tenants/${LABS}/api-keys` }, 'cross_tenant_denied'],
  ])('writes a security event when %s is refused', async (_what, attempt, kind) => {
    const before = sandbox().state.securityEvents.length;
    const r = await call(sandbox(), 'GET', attempt.path, {
      token: tokenOf('usr_viewer'),
      ...(attempt.tenant ? { tenant: attempt.tenant } : {}),
      ...(attempt.org ? { org: attempt.org } : {}),
    });
    expect(r.status).toBe(403);
    const events = sandbox().state.securityEvents.slice(before);
    expect(events).toEqual([
      expect.objectContaining({
        kind,
        actor: 'usr_viewer',
        org_id: DEMO_ORG,
        request_id: r.body.error.request_id,
      }),
    ]);
  });
});

describe('unknown paths', () => {
  it.each(['/v1/tenant', '/v1/no-such-thing', '/v1/ledgers', '/v1/reconciliation/rec_1'])(
    'GET %s is 404 with the error body',
    async (path) => {
      const r = await call(sandbox(), 'GET', path, { ...admin(), tenant: TREASURY });
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found', request_id: r.headers.get('x-request-id') });
    },
  );

  it('suggests the route a typo meant', async () => {
    const r = await call(sandbox(), 'GET', '/v1/tenant', admin());
    expect(r.body.error.message).toBe('no route GET /v1/tenant (did you mean /v1/tenants?)');
  });

  it('answers a write to the read-only audit trail with 405 and Allow', async () => {
    const r = await call(sandbox(), 'POST', '/v1/audit_trail', {
      ...admin(),
      tenant: TREASURY,
      body: { idempotency_key: key() },
    });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect(r.body.error.code).toBe('method_not_allowed');
  });
});
