import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// An audit entry of a change carries the change (findings escalate13 F4): a role's permissions
// added and removed (a creation's too), a webhook's or OAuth client's old and new targets, and
// `changes` naming the record's fields, not the request's operators. And two permission truths:
// one permission both added and removed is refused (F5); tenant.read is an organisation
// permission no tenant role carries (F2).
const sandbox = useSandbox();
const TENANT = tenantId('acme-treasury');
let keys = 0;
const admin = () => ({ token: sandbox().adminToken, tenant: TENANT });
const post = (path: string, body: Record<string, unknown>) =>
  call(sandbox(), 'POST', path, { ...admin(), body: { ...body, idempotency_key: `detail-${++keys}` } });
const patch = (path: string, body: Record<string, unknown>) =>
  call(sandbox(), 'PATCH', path, { ...admin(), body });
const newest = async (query: string) => {
  const r = await call(sandbox(), 'GET', `/v1/audit_trail?order=desc&limit=1&${query}`, admin());
  expect(r.status, r.text).toBe(200);
  return (r.body as { items: Array<Record<string, any>> }).items[0]!;
};
const detail = (e: Record<string, any>) => ({
  action: e.action,
  summary: e.summary,
  changes: e.changes,
  before: e.before,
  after: e.after,
  permissions_added: e.permissions_added,
  permissions_removed: e.permissions_removed,
});

describe('role entries carry the permissions', () => {
  it('a creation, an add, a replacement: added and removed, before and after, changes naming permissions', async () => {
    const role = (await post('/v1/roles', { name: 'r8', permissions: ['role.read'] })).body;
    expect(detail(await newest(`target_id=${role.id}`))).toEqual({
      action: 'role.created',
      summary: 'custom role r8 created',
      changes: null,
      before: null,
      after: { name: 'r8', description: '', permissions: ['role.read'] },
      permissions_added: ['role.read'],
      permissions_removed: [],
    });

    expect(
      (await patch(`/v1/roles/${role.id}`, { add_permissions: ['account.write', 'api_key.manage'] })).status,
    ).toBe(200);
    expect(detail(await newest(`target_id=${role.id}`))).toEqual({
      action: 'role.updated',
      summary: 'custom role r8 updated (permissions)',
      changes: ['permissions'],
      before: { permissions: ['role.read'] },
      after: { permissions: ['account.write', 'api_key.manage', 'role.read'] },
      permissions_added: ['account.write', 'api_key.manage'],
      permissions_removed: [],
    });

    const replaced = await patch(`/v1/roles/${role.id}`, {
      permissions: ['account.read', 'role.read'],
      name: 'r9',
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(detail(await newest(`target_id=${role.id}`))).toEqual({
      action: 'role.updated',
      summary: 'custom role r9 updated (name, permissions)',
      changes: ['name', 'permissions'],
      before: { name: 'r8', permissions: ['account.write', 'api_key.manage', 'role.read'] },
      after: { name: 'r9', permissions: ['account.read', 'role.read'] },
      permissions_added: ['account.read'],
      permissions_removed: ['account.write', 'api_key.manage'],
    });
  });

  it('a description change names no permissions moved', async () => {
    const role = (await post('/v1/roles', { name: 'r-desc', permissions: ['role.read'] })).body;
    await patch(`/v1/roles/${role.id}`, { description: 'reads roles' });
    expect(detail(await newest(`target_id=${role.id}`))).toMatchObject({
      changes: ['description'],
      before: { description: '' },
      after: { description: 'reads roles' },
      permissions_added: [],
      permissions_removed: [],
    });
  });
});

describe('webhook and OAuth client entries carry old and new values', () => {
  it('webhook.updated: the old and new URL (credentials masked) and event kinds', async () => {
    const url = 'https://hooks.example.com/in?token=s3cr3t-t0ken-abcdef';
    const hook = (await post('/v1/webhooks', { url, event_types: ['webhook.test'] })).body;
    const r = await patch(`/v1/webhooks/${hook.id}`, {
      url: 'https://exfil.example/x',
      event_types: ['webhook.test', 'exception.created'],
    });
    expect(r.status, r.text).toBe(200);
    const entry = await newest(`action=webhook.updated&target_id=${hook.id}`);
    expect(detail(entry)).toEqual({
      action: 'webhook.updated',
      summary: `webhook ${hook.id} updated (url, event_types)`,
      changes: ['url', 'event_types'],
      before: { url: 'https://hooks.example.com/in?token=[redacted]', event_types: ['webhook.test'] },
      after: { url: 'https://exfil.example/x', event_types: ['exception.created', 'webhook.test'] },
      permissions_added: null,
      permissions_removed: null,
    });
    expect(JSON.stringify(entry)).not.toContain('s3cr3t');
    const created = await newest(`action=webhook.created&target_id=${hook.id}`);
    expect([created.changes, created.before, created.after]).toEqual([
      null,
      null,
      { url: 'https://hooks.example.com/in?token=[redacted]', event_types: ['webhook.test'] },
    ]);
  });

  it('oauth_client.updated: the old and new redirect URIs and scopes, never the secret', async () => {
    const client = (
      await post('/v1/oauth/clients', {
        name: 'integ2',
        redirect_uris: ['https://vendor.example/cb'],
        scopes: ['read:exceptions'],
      })
    ).body;
    const r = await patch(`/v1/oauth/clients/${client.client_id}`, {
      redirect_uris: ['https://evil.example/cb'],
      scopes: ['read:exceptions', 'admin'],
    });
    expect(r.status, r.text).toBe(200);
    const entry = await newest(`action=oauth_client.updated&target_id=${client.client_id}`);
    expect(detail(entry)).toEqual({
      action: 'oauth_client.updated',
      summary: `OAuth client integ2 (${client.client_id}) updated (redirect_uris, scopes)`,
      changes: ['redirect_uris', 'scopes'],
      before: { redirect_uris: ['https://vendor.example/cb'], scopes: ['read:exceptions'] },
      after: { redirect_uris: ['https://evil.example/cb'], scopes: ['read:exceptions', 'admin'] },
      permissions_added: null,
      permissions_removed: null,
    });
    expect(JSON.stringify(entry)).not.toContain(client.client_secret);
    const created = await newest(`action=oauth_client.created&target_id=${client.client_id}`);
    expect([created.before, created.after]).toEqual([
      null,
      {
        redirect_uris: ['https://vendor.example/cb'],
        scopes: ['read:exceptions'],
        grant_types: client.grant_types,
      },
    ]);
    expect(JSON.stringify(created)).not.toContain(client.client_secret);
  });
});

describe('a permission both added and removed (F5)', () => {
  it('is refused naming it, and the role and the trail stay as they were', async () => {
    const role = (await post('/v1/roles', { name: 'both', permissions: ['exception.read', 'role.read'] }))
      .body;
    const r = await patch(`/v1/roles/${role.id}`, {
      add_permissions: ['exception.read', 'account.read'],
      remove_permissions: ['exception.read'],
    });
    expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([
      400,
      'invalid_request',
      'exception.read is both added and removed; pick one',
    ]);
    expect(r.body.error.details).toEqual([
      { field: 'remove_permissions', message: 'exception.read is also in add_permissions' },
    ]);
    const now = await call(sandbox(), 'GET', `/v1/roles/${role.id}`, admin());
    expect(now.body.permissions).toEqual(['exception.read', 'role.read']);
    expect((await newest(`target_id=${role.id}`)).action).toBe('role.created');
  });
});

describe('tenant.read is an organisation permission (F2)', () => {
  it('is refused in a tenant custom role, created or changed, saying why', async () => {
    const create = await post('/v1/roles', { name: 'tenantlister', permissions: ['tenant.read'] });
    const why =
      'tenant.read is an organisation permission (org_admin): no tenant role can grant it; an organisation administrator sets org_role';
    expect([create.status, create.body.error?.code, create.body.error?.message]).toEqual([
      400,
      'invalid_request',
      why,
    ]);
    expect(create.body.error.details).toEqual([
      { field: 'permissions', message: 'tenant.read is an organisation permission' },
    ]);
    const role = (await post('/v1/roles', { name: 'lister2', permissions: ['role.read'] })).body;
    const widen = await patch(`/v1/roles/${role.id}`, { add_permissions: ['tenant.read'] });
    expect([widen.status, widen.body.error?.message]).toEqual([400, why]);
  });

  it('the catalog says org_admin alone grants it; tenant_admin does not hold it', async () => {
    const r = await call(sandbox(), 'GET', '/v1/permissions', admin());
    const entry = r.body.items.find((p: { name: string }) => p.name === 'tenant.read');
    expect(entry).toEqual({
      name: 'tenant.read',
      description: expect.any(String),
      builtin_roles: ['org_admin'],
      scope: 'organization',
    });
    expect(r.body.items.find((p: { name: string }) => p.name === 'role.read').scope).toBe('tenant');
    const admins = await call(sandbox(), 'GET', '/v1/roles/tenant_admin', admin());
    expect(admins.body.permissions).not.toContain('tenant.read');
  });
});
