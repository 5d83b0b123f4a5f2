import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../src/api/audit.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// The audit trail as a platform operation (issue 13): every administrative change writes one
// entry, read with filters at GET /v1/audit_trail.
const sandbox = useSandbox();
const TENANT = tenantId('acme-treasury');
const OTHER = tenantId('acme-payments-eu');
let keys = 0;
const admin = (tenant = TENANT) => ({ token: sandbox().adminToken, tenant });
const post = (path: string, body: Record<string, unknown>, tenant = TENANT) =>
  call(sandbox(), 'POST', path, { ...admin(tenant), body: { ...body, idempotency_key: `audit-${++keys}` } });

async function list(query = '', tenant = TENANT) {
  const r = await call(sandbox(), 'GET', `/v1/audit_trail${query ? `?${query}` : ''}`, admin(tenant));
  expect(r.status, r.text).toBe(200);
  return r.body as { items: Array<Record<string, any>>; next_cursor: string | null };
}

describe('GET /v1/audit_trail', () => {
  it('records every kind of administrative change, with the actor, the request and a summary', async () => {
    const role = (await post('/v1/roles', { name: 'audit-desk', permissions: ['exception.read'] })).body;
    await call(sandbox(), 'PATCH', `/v1/roles/${role.id}`, { ...admin(), body: { description: 'desk' } });
    const granted = await post('/v1/users/usr_viewer/roles', {
      role_id: role.id,
      justification: 'audit test',
    });
    await call(sandbox(), 'DELETE', `/v1/users/usr_viewer/roles/${role.id}`, admin());
    await call(sandbox(), 'DELETE', `/v1/roles/${role.id}`, admin());
    const key = (await post(`/v1/tenants/${TENANT}/api-keys`, { kind: 'publishable', name: 'dash' })).body;
    await call(sandbox(), 'DELETE', `/v1/tenants/${TENANT}/api-keys/${key.id}`, admin());
    await call(sandbox(), 'DELETE', `/v1/tenants/${TENANT}/api-keys/${key.id}`, admin());
    const hook = (await post('/v1/webhooks', { url: 'http://127.0.0.1:9/a', event_types: ['webhook.test'] }))
      .body;
    await call(sandbox(), 'PATCH', `/v1/webhooks/${hook.id}`, { ...admin(), body: { description: 'ops' } });
    await post(`/v1/webhooks/${hook.id}/rotate-secret`, {});
    await call(sandbox(), 'DELETE', `/v1/webhooks/${hook.id}`, admin());
    const client = (
      await post('/v1/oauth/clients', {
        name: 'audited',
        redirect_uris: ['https://a.example/cb'],
        scopes: ['read:exceptions'],
      })
    ).body;
    await post(`/v1/oauth/clients/${client.client_id}/rotate-secret`, {});

    // The changes made here (the seed's own grants have entries too, by actor "system").
    const entries = (await list('limit=200&actor=usr_admin')).items;
    const actions = entries.map((e) => e.action);
    expect(actions).toEqual([
      'role.created',
      'role.updated',
      'role.assigned',
      'role.revoked',
      'role.deleted',
      'api_key.issued',
      'api_key.revoked',
      'webhook.created',
      'webhook.updated',
      'webhook.secret_rotated',
      'webhook.deleted',
      'oauth_client.created',
      'oauth_client.secret_rotated',
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        surface: 'audit_trail',
        tenant_id: TENANT,
        actor: 'usr_admin',
        created_by: 'usr_admin',
        request_id: expect.stringMatching(/^req_/),
        summary: expect.any(String),
      });
      expect(AUDIT_ACTIONS).toContain(entry.action);
    }
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
    expect(byAction['role.assigned']).toMatchObject({
      id: granted.body.audit_trail_id,
      target_type: 'user',
      target_id: 'usr_viewer',
      role_id: role.id,
      justification: 'audit test',
      summary: 'audit-desk granted to usr_viewer permanently',
    });
    expect(byAction['webhook.updated']).toMatchObject({ target_id: hook.id, changes: ['description'] });
    expect(byAction['api_key.issued'].summary).toMatch(/^publishable key dash \(svc_pk_[\w-]+…\) issued$/);
    // No secret reaches the trail.
    expect(JSON.stringify(entries)).not.toMatch(/whsec_|svc_cs_|svc_pk_[\w-]{20}/);
  });

  it('filters by action or family, actor, user, target, and time, and pages either way', async () => {
    const webhooks = await list('action=webhook');
    expect(new Set(webhooks.items.map((e) => e.action))).toEqual(
      new Set(['webhook.created', 'webhook.updated', 'webhook.secret_rotated', 'webhook.deleted']),
    );
    expect((await list('action=api_key.revoked')).items).toHaveLength(1);
    expect((await list('user_id=usr_viewer&actor=usr_admin')).items.map((e) => e.action)).toEqual([
      'role.assigned',
      'role.revoked',
    ]);
    expect((await list('actor=usr_nobody')).items).toEqual([]);
    expect((await list('target_type=oauth_client')).items).toHaveLength(2);
    expect((await list('until=2000-01-01T00:00:00Z')).items).toEqual([]);
    expect((await list('since=2000-01-01T00:00:00Z&limit=200')).items.length).toBe(
      (await list('limit=200')).items.length,
    );

    const newestFirst: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`order=desc&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      newestFirst.push(...page.items.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    const oldestFirst = (await list('limit=200')).items.map((e) => e.id);
    expect(newestFirst).toEqual([...oldestFirst].reverse());
  });

  it('keeps each tenant to its own entries, and reads one by id', async () => {
    const ours = (await list()).items[0]!;
    expect((await call(sandbox(), 'GET', `/v1/audit_trail/${ours.id}`, admin())).body).toEqual(ours);
    const elsewhere = await call(sandbox(), 'GET', `/v1/audit_trail/${ours.id}`, admin(OTHER));
    expect(elsewhere.status).toBe(404);
    expect((await list('', OTHER)).items.every((e) => e.tenant_id === OTHER)).toBe(true);
  });

  it('refuses an unknown action with a suggestion, and writes stay 405', async () => {
    const r = await call(sandbox(), 'GET', '/v1/audit_trail?action=role.asigned', admin());
    expect([r.status, r.body.error.message]).toEqual([
      400,
      'unknown action role.asigned (did you mean role.assigned?)',
    ]);
    const write = await post('/v1/audit_trail', { action: 'forged' });
    expect(write.status).toBe(405);
  });
});

describe('GET /v1/permissions', () => {
  it('lists the catalog with descriptions and the built-in roles that grant each, least privileged first', async () => {
    const r = await call(sandbox(), 'GET', '/v1/permissions', admin());
    expect(r.status).toBe(200);
    const byName = Object.fromEntries(r.body.items.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(byName)).toEqual(Object.keys(sandbox().openapi()['x-permission-catalog'] as object));
    expect(byName['audit_trail.read']).toEqual({
      name: 'audit_trail.read',
      description: 'Read the audit trail',
      builtin_roles: ['tenant_auditor', 'tenant_admin'],
      scope: 'tenant',
    });
    expect(byName['exception.read'].builtin_roles[0]).toBe('tenant_viewer');
    // An organisation permission: org_role decides it, so no tenant role grants it (escalate13 F2).
    expect(byName['tenant.read']).toMatchObject({ builtin_roles: ['org_admin'], scope: 'organization' });
    expect(r.body.next_cursor).toBeNull();
  });
});

describe('seeded grants', () => {
  // A grant's audit_trail_id names an entry (README: `svc audit get ID`), seeded ones too.
  it('have audit-trail entries their audit_trail_id resolves to', async () => {
    const holders = await call(sandbox(), 'GET', '/v1/role-assignments?role_id=tenant_admin', admin());
    expect(holders.status, holders.text).toBe(200);
    const seeded = (holders.body as { items: Array<Record<string, any>> }).items.filter(
      (a) => a.assigned_by === 'system',
    );
    expect(seeded.length).toBeGreaterThan(0);
    for (const grant of seeded) {
      const entry = await call(sandbox(), 'GET', `/v1/audit_trail/${grant.audit_trail_id}`, admin());
      expect(entry.status, entry.text).toBe(200);
      expect(entry.body).toMatchObject({
        id: grant.audit_trail_id,
        action: 'role.assigned',
        user_id: grant.user_id,
        role_id: grant.role_id,
        actor: 'system',
        created_at: grant.assigned_at,
      });
    }
  });
});
