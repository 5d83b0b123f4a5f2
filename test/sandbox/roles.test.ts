// Over 300 lines: the sandbox's role rules against the reference, one rule per test.
import { describe, expect, it } from 'vitest';
import { BUILTIN_TENANT_ROLES } from '../../src/api/constants.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, sandboxNow, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const TENANT = tenantId('acme-treasury');
let keys = 0;
const key = () => `test-key-${++keys}`;
const admin = () => ({ token: sandbox().adminToken, tenant: TENANT });
const as = (user: string) => ({
  token: sandbox().issueToken(user, { expiresInSeconds: 86_400 }).token,
  tenant: TENANT,
});

async function createRole(name: string, permissions: string[], description?: string) {
  const r = await call(sandbox(), 'POST', '/v1/roles', {
    ...admin(),
    body: { name, permissions, ...(description ? { description } : {}), idempotency_key: key() },
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

describe('the role catalog', () => {
  it('lists every built-in role of the reference plus org_admin, with their permissions', async () => {
    const r = await call(sandbox(), 'GET', '/v1/roles?kind=builtin', admin());
    expect(r.status).toBe(200);
    expect(r.body.items.map((role: any) => role.id)).toEqual([...BUILTIN_TENANT_ROLES, 'org_admin']);
    const byId = Object.fromEntries(r.body.items.map((role: any) => [role.id, role]));
    expect(byId.tenant_admin).toMatchObject({
      name: 'tenant_admin',
      kind: 'builtin',
      scope: 'tenant',
      tenant_id: null,
    });
    expect(byId.tenant_viewer.permissions).toEqual(['account.read', 'exception.read', 'reconciliation.read']);
    expect(byId.org_admin).toMatchObject({ scope: 'organization', permissions: ['tenant.read'] });
    expect(r.body.next_cursor).toBeNull();
  });

  it('publishes the permission catalog in the OpenAPI document', () => {
    const doc = sandbox().openapi() as any;
    expect(Object.keys(doc['x-permission-catalog'])).toEqual(
      expect.arrayContaining([
        'exception.read',
        'exception.resolve.fx_difference',
        'rule.write.fx',
        'ai_copilot.use.fx',
      ]),
    );
    expect(doc.components.schemas.Role).toBeDefined();
  });

  it.each([
    ['PATCH', '/v1/roles/tenant_admin', { name: 'boss' }],
    ['DELETE', '/v1/roles/tenant_viewer', undefined],
    ['PATCH', '/v1/roles/org_admin', { description: 'x' }],
  ])('refuses %s %s: built-in roles are immutable', async (method, path, body) => {
    const r = await call(sandbox(), method, path, { ...admin(), ...(body ? { body } : {}) });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('builtin_role_immutable');
    expect(r.body.error.message).toMatch(/is a built-in role; built-in roles cannot be changed or deleted$/);
  });
});

describe('custom roles', () => {
  it('creates, reads, updates and soft-deletes a role', async () => {
    const role = await createRole(
      'fx-resolver',
      ['exception.resolve.fx_difference', 'exception.read'],
      'FX desk',
    );
    expect(role).toMatchObject({
      name: 'fx-resolver',
      description: 'FX desk',
      kind: 'custom',
      scope: 'tenant',
      permissions: ['exception.read', 'exception.resolve.fx_difference'],
      tenant_id: TENANT,
      created_by: 'usr_admin',
      deleted_at: null,
    });
    expect(role.id).toMatch(/^role_[0-9a-f]{24}$/);
    expect((await call(sandbox(), 'GET', `/v1/roles/${role.id}`, admin())).body).toEqual(role);

    const patched = await call(sandbox(), 'PATCH', `/v1/roles/${role.id}`, {
      ...admin(),
      body: {
        name: 'fx-desk',
        add_permissions: ['rule.write.fx'],
        remove_permissions: ['exception.read', 'rule.read'],
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'fx-desk',
      permissions: ['exception.resolve.fx_difference', 'rule.write.fx'],
    });

    // A change that changes nothing: the role as it was (updated_at too), and no audit entry.
    sandbox().state.clock.advance(60_000);
    const audits = async () =>
      (await call(sandbox(), 'GET', '/v1/audit_trail?limit=200', admin())).body.items.length;
    const auditsBefore = await audits();
    const same = await call(sandbox(), 'PATCH', `/v1/roles/${role.id}`, {
      ...admin(),
      body: { name: 'fx-desk', add_permissions: ['rule.write.fx'], remove_permissions: ['rule.read'] },
    });
    expect(same.status, same.text).toBe(200);
    expect(same.body).toEqual(patched.body);
    expect(await audits()).toBe(auditsBefore);

    const deleted = await call(sandbox(), 'DELETE', `/v1/roles/${role.id}`, admin());
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_at).toMatch(/Z$/);
    const listed = await call(sandbox(), 'GET', '/v1/roles?kind=custom', admin());
    expect(listed.body.items.map((r: any) => r.id)).not.toContain(role.id);
    const withDeleted = await call(sandbox(), 'GET', '/v1/roles?kind=custom&include_deleted=true', admin());
    expect(withDeleted.body.items.map((r: any) => r.id)).toContain(role.id);
    expect((await call(sandbox(), 'GET', `/v1/roles/${role.id}`, admin())).body.deleted_at).toBe(
      deleted.body.deleted_at,
    );
    const again = await call(sandbox(), 'DELETE', `/v1/roles/${role.id}`, admin());
    expect([again.status, again.body.error.code]).toEqual([409, 'role_deleted']);
    // The name is free again.
    await createRole('fx-desk', ['exception.read']);
  });

  it.each([
    [
      { name: 'Ops Team', permissions: ['exception.read'] },
      400,
      'invalid_request',
      /^name must match pattern/,
    ],
    [
      { name: 'ops', permissions: ['Exception.Read'] },
      400,
      'invalid_request',
      /^permissions\.0 must match pattern/,
    ],
    [
      { name: 'ops', permissions: [] },
      400,
      'invalid_request',
      /^permissions must NOT have fewer than 1 items/,
    ],
    [
      { name: 'ops', permissions: ['exception.reed', 'rule.write.fx'] },
      400,
      'unknown_permission',
      /^unknown permission exception\.reed \(did you mean exception\.read\?\); GET \/v1\/permissions lists the catalog/,
    ],
    [
      { name: 'tenant_ops', permissions: ['exception.read'] },
      400,
      'reserved_role_name',
      /^role names starting with tenant_/,
    ],
    [{ name: 'tenant_admin', permissions: ['exception.read'] }, 400, 'reserved_role_name', /tenant_/],
    // The shape of every custom role's id: a role named like another's id could never be named.
    [
      { name: 'role_60a5f0c1d2e3f4a5b6c7d8e9', permissions: ['exception.read'] },
      400,
      'reserved_role_name',
      'role names starting with role_ are kept for role ids',
    ],
    // Look-alikes (tenants tester, session 10): tenant-admin reads as tenant_admin in a listing,
    // usr_admin as a user id in `svc roles holders usr_admin`.
    [
      { name: 'tenant-admin', permissions: ['exception.read'] },
      400,
      'reserved_role_name',
      'role names starting with tenant- are kept: they read as built-in roles (tenant_…)',
    ],
    [
      { name: 'org-admin', permissions: ['exception.read'] },
      400,
      'reserved_role_name',
      'role names starting with org- are kept: they read as built-in roles (org_…)',
    ],
    [
      { name: 'usr_admin', permissions: ['exception.read'] },
      400,
      'reserved_role_name',
      'role names starting with usr_ are kept for user ids',
    ],
    [
      { name: 'key_ops', permissions: ['exception.read'] },
      400,
      'reserved_role_name',
      'role names starting with key_ are kept for API key ids',
    ],
    [
      { name: 'cli_ops', permissions: ['exception.read'] },
      400,
      'reserved_role_name',
      'role names starting with cli_ are kept for OAuth client ids',
    ],
    [
      { name: 'wh_ops', permissions: ['exception.read'] },
      400,
      'reserved_role_name',
      'role names starting with wh_ are kept for webhook ids',
    ],
  ])('refuses %j with %i %s', async (body, status, code, message) => {
    const r = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      body: { ...body, idempotency_key: key() },
    });
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.message).toMatch(message);
  });

  it('keeps names unique among live roles of a tenant, and a role keeps one permission', async () => {
    const role = await createRole('night-shift', ['exception.read']);
    const dup = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      body: { name: 'night-shift', permissions: ['rule.read'], idempotency_key: key() },
    });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'role_name_taken']);
    const other = await call(sandbox(), 'POST', '/v1/roles', {
      token: sandbox().adminToken,
      tenant: tenantId('acme-labs'),
      body: { name: 'night-shift', permissions: ['rule.read'], idempotency_key: key() },
    });
    expect(other.status).toBe(201);
    const empty = await call(sandbox(), 'PATCH', `/v1/roles/${role.id}`, {
      ...admin(),
      body: { remove_permissions: ['exception.read'] },
    });
    expect([empty.status, empty.body.error.message]).toEqual([400, 'a role needs at least one permission']);
    const invisible = await call(sandbox(), 'GET', `/v1/roles/${other.body.id}`, admin());
    expect(invisible.status).toBe(404);
  });
});

describe('role assignments', () => {
  it('assigns with the reference fields, assigned_by from the caller and an audit-trail entry', async () => {
    const r = await call(sandbox(), 'POST', '/v1/users/usr_viewer/roles', {
      ...admin(),
      body: {
        role_id: 'tenant_analyst',
        expires_at: '2099-01-01T00:00:00Z',
        justification: 'cover',
        idempotency_key: key(),
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      user_id: 'usr_viewer',
      role_id: 'tenant_analyst',
      role_name: 'tenant_analyst',
      tenant_id: TENANT,
      assigned_by: 'usr_admin',
      expires_at: '2099-01-01T00:00:00Z',
      justification: 'cover',
      status: 'active',
      revoked_at: null,
    });
    expect(r.body.audit_trail_id).toMatch(/^aud_/);
    const trail = await call(
      sandbox(),
      'GET',
      '/_sandbox/audit-trail?user_id=usr_viewer&action=role.assigned',
    );
    expect(trail.body.items.at(-1)).toMatchObject({
      id: r.body.audit_trail_id,
      actor: 'usr_admin',
      role_id: 'tenant_analyst',
      justification: 'cover',
    });

    const dup = await call(sandbox(), 'POST', '/v1/users/usr_viewer/roles', {
      ...admin(),
      body: { role_id: 'tenant_analyst', idempotency_key: key() },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({
      code: 'assignment_exists',
      message: 'usr_viewer already holds tenant_analyst until 2099-01-01T00:00:00Z',
    });
    expect(dup.body.error.details[0].assignment.audit_trail_id).toBe(r.body.audit_trail_id);

    const listed = await call(sandbox(), 'GET', '/v1/users/usr_viewer/roles', admin());
    expect(listed.body.items.map((a: any) => a.role_id)).toEqual(['tenant_viewer', 'tenant_analyst']);

    const revoked = await call(sandbox(), 'DELETE', '/v1/users/usr_viewer/roles/tenant_analyst', admin());
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_by: 'usr_admin' });
    expect(revoked.body.revocation_audit_trail_id).toMatch(/^aud_/);
    const after = await call(sandbox(), 'GET', '/v1/users/usr_viewer/roles', admin());
    expect(after.body.items.map((a: any) => a.role_id)).toEqual(['tenant_viewer']);
    const history = await call(sandbox(), 'GET', '/v1/users/usr_viewer/roles?include_inactive=true', admin());
    expect(history.body.items.map((a: any) => a.status)).toEqual(['active', 'revoked']);
    const twice = await call(sandbox(), 'DELETE', '/v1/users/usr_viewer/roles/tenant_analyst', admin());
    expect([twice.status, twice.body.error.code, twice.body.error.message]).toEqual([
      404,
      'assignment_not_found',
      'usr_viewer does not hold tenant_analyst in this tenant',
    ]);
  });

  it.each([
    ['usr_nobody', { role_id: 'tenant_viewer' }, 404, 'not_found', 'user usr_nobody not found'],
    ['usr_bruce', { role_id: 'tenant_viewer' }, 404, 'not_found', 'user usr_bruce not found'],
    [
      'usr_lead',
      { role_id: 'role_000000000000000000000000' },
      404,
      'not_found',
      'role role_000000000000000000000000 not found',
    ],
    [
      'usr_lead',
      { role_id: 'org_admin' },
      400,
      'role_not_assignable',
      'org_admin is an organisation role; it is not granted per tenant',
    ],
    [
      'usr_lead',
      { role_id: 'tenant_viewer', expires_at: '2020-01-01T00:00:00Z' },
      400,
      'invalid_expiry',
      /^expires_at 2020-01-01T00:00:00Z is not in the future/,
    ],
    [
      'usr_lead',
      { role_id: 'tenant_viewer', expires_at: 'tomorrow' },
      400,
      'invalid_request',
      /^expires_at must match format "date-time"/,
    ],
  ])('POST /v1/users/%s/roles %j → %i %s', async (user, body, status, code, message) => {
    const r = await call(sandbox(), 'POST', `/v1/users/${user}/roles`, {
      ...admin(),
      body: { ...body, idempotency_key: key() },
    });
    expect(r.status, r.text).toBe(status);
    expect(r.body.error.code).toBe(code);
    if (typeof message === 'string') expect(r.body.error.message).toBe(message);
    else expect(r.body.error.message).toMatch(message);
  });

  it('refuses to revoke the last active tenant_admin of a tenant', async () => {
    const r = await call(sandbox(), 'DELETE', '/v1/users/usr_admin/roles/tenant_admin', admin());
    expect([r.status, r.body.error.code]).toEqual([409, 'last_tenant_admin']);
  });

  it('needs tenant_admin, or a custom role granting the permission — which cannot escalate', async () => {
    const analyst = as('usr_analyst');
    const denied = await call(sandbox(), 'GET', '/v1/roles', analyst);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(
      'listing roles needs permission role.read in tenant acme-treasury, which your live roles there (tenant_analyst) do not grant; ask a tenant_admin of acme-treasury for a role that grants it',
    );
    const granter = await createRole('granter', ['role.read', 'role.assign', 'exception.read']);
    await call(sandbox(), 'POST', '/v1/users/usr_analyst/roles', {
      ...admin(),
      body: { role_id: granter.id, idempotency_key: key() },
    });
    expect((await call(sandbox(), 'GET', '/v1/roles', analyst)).status).toBe(200);
    // Granting a role whose permissions the analyst holds works; tenant_admin does not.
    const ok = await call(sandbox(), 'POST', '/v1/users/usr_lead/roles', {
      ...analyst,
      body: { role_id: 'tenant_viewer', idempotency_key: key() },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.assigned_by).toBe('usr_analyst');
    const escalate = await call(sandbox(), 'POST', '/v1/users/usr_lead/roles', {
      ...analyst,
      body: { role_id: 'tenant_admin', idempotency_key: key() },
    });
    expect([escalate.status, escalate.body.error.code]).toEqual([403, 'insufficient_permission']);
    // Nor to itself, even a role whose permissions it holds (403 self_assignment).
    const self = await call(sandbox(), 'POST', '/v1/users/usr_analyst/roles', {
      ...analyst,
      body: { role_id: 'tenant_viewer', idempotency_key: key() },
    });
    expect([self.status, self.body.error.code]).toEqual([403, 'self_assignment']);
    // Deleting the custom role takes its access away at once.
    await call(sandbox(), 'DELETE', `/v1/roles/${granter.id}`, admin());
    expect((await call(sandbox(), 'GET', '/v1/roles', analyst)).status).toBe(403);
    const history = await call(
      sandbox(),
      'GET',
      '/v1/users/usr_analyst/roles?include_inactive=true',
      admin(),
    );
    expect(history.body.items.find((a: any) => a.role_id === granter.id).status).toBe('role_deleted');
  });

  it('an assignment that expires stops authorizing on the next call (the sandbox clock)', async () => {
    const auditor = as('usr_auditor');
    expect((await call(sandbox(), 'GET', '/v1/roles', auditor)).status).toBe(403);
    const now = await sandboxNow(sandbox());
    const grant = await call(sandbox(), 'POST', '/v1/users/usr_auditor/roles', {
      ...admin(),
      body: {
        role_id: 'tenant_admin',
        expires_at: new Date(now + 30 * 60_000).toISOString(),
        idempotency_key: key(),
      },
    });
    expect(grant.status, grant.text).toBe(201);
    expect((await call(sandbox(), 'GET', '/v1/roles', auditor)).status).toBe(200);
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 31 * 60 } });
    const expired = await call(sandbox(), 'GET', '/v1/roles', auditor);
    expect([expired.status, expired.body.error.code]).toEqual([403, 'insufficient_role']);
    const history = await call(
      sandbox(),
      'GET',
      '/v1/users/usr_auditor/roles?include_inactive=true',
      admin(),
    );
    expect(history.body.items.map((a: any) => [a.role_id, a.status])).toEqual([
      ['tenant_auditor', 'active'],
      ['tenant_admin', 'expired'],
    ]);
  });
});
