import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { adminGrant, call, useSandbox } from '../helpers/sandbox.js';

// The sandbox against what the platform reference and the sandbox's own document say, for requests
// a client built from the reference sends: the role filter of GET /v1/tenants, tenant ids in
// upper case, the reference's common Content-Type on a request without a body, unknown query
// parameters, and bodies whose idempotency_key is not a string.
const sandbox = useSandbox();
const treasury = tenantId('acme-treasury');
const admin = () => ({ token: sandbox().adminToken, tenant: treasury });

async function createRole(name: string): Promise<string> {
  const r = await call(sandbox(), 'POST', '/v1/roles', {
    ...admin(),
    body: { name, permissions: ['exception.read'], idempotency_key: `role-${name}` },
  });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

const grant = (user: string, roleId: string) => adminGrant(sandbox(), treasury, user, roleId);

const slugs = (body: { items: Array<{ slug: string }> }) => body.items.map((t) => t.slug);

describe('GET /v1/tenants?role= keeps a tenant where the caller holds the role live', () => {
  it('matches a custom role by name beside a built-in one, and each of two built-in roles', async () => {
    const fx = await createRole('fx-desk');
    await grant('usr_viewer', fx);
    await grant('usr_analyst', 'tenant_lead');
    const viewer = sandbox().issueToken('usr_viewer').token;
    const analyst = sandbox().issueToken('usr_analyst').token;
    const list = async (token: string, role: string) =>
      (await call(sandbox(), 'GET', `/v1/tenants?role=${role}`, { token })).body;

    expect(slugs(await list(viewer, 'fx-desk'))).toEqual(['acme-treasury']);
    expect(slugs(await list(viewer, 'tenant_viewer'))).toEqual(['acme-treasury', 'acme-ledger-uk']);
    expect(slugs(await list(analyst, 'tenant_analyst'))).toEqual(['acme-treasury']);
    expect(slugs(await list(analyst, 'tenant_lead'))).toEqual(['acme-treasury']);
    expect(slugs(await list(analyst, 'tenant_admin'))).toEqual([]);
    // The role column stays the highest live role.
    expect((await list(analyst, 'tenant_analyst')).items[0].role).toBe('tenant_lead');
    expect((await list(viewer, 'fx-desk')).items[0].role).toBe('tenant_viewer');
  });
});

describe("a request without a body, sent with the reference's common Content-Type: application/json", () => {
  const json = { 'content-type': 'application/json' };

  it.each([
    ['a role', async () => `/v1/roles/${await createRole('ct-del')}`],
    ['a grant', async () => '/v1/users/usr_auditor/roles/tenant_auditor'],
  ])('DELETE of %s is accepted: there is nothing to parse', async (_name, path) => {
    const r = await call(sandbox(), 'DELETE', await path(), { ...admin(), headers: json });
    expect([r.status, r.body.error]).toEqual([200, undefined]);
  });

  it.each(['GET', 'HEAD'])('%s is accepted', async (method) => {
    const r = await call(sandbox(), method, '/v1/roles', { ...admin(), headers: json });
    expect(r.status).toBe(200);
  });

  it('a POST, whose route takes a body, is still told it needs one', async () => {
    const r = await call(sandbox(), 'POST', '/v1/roles', { ...admin(), headers: json });
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
  });
});

describe('a POST body that is not an object, or whose idempotency_key is not a string', () => {
  it.each([
    [
      'a number key',
      '{"name":"num-key","permissions":["exception.read"],"idempotency_key":123}',
      'idempotency_key must be a string (1 to 255 characters)',
    ],
    [
      'a null key',
      '{"name":"num-key","permissions":["exception.read"],"idempotency_key":null}',
      'idempotency_key must be a string (1 to 255 characters)',
    ],
    [
      'an object key',
      '{"name":"num-key","permissions":["exception.read"],"idempotency_key":{"k":1}}',
      'idempotency_key must be a string (1 to 255 characters)',
    ],
    [
      'an array body',
      '[{"name":"num-key","permissions":["exception.read"],"idempotency_key":"arr"}]',
      'the body must be a JSON object',
    ],
    ['a null body', 'null', 'the body must be a JSON object'],
    ['a string body', '"key"', 'the body must be a JSON object'],
  ])('%s is named as such (400 invalid_request)', async (_name, text, message) => {
    const r = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      text,
      headers: { 'content-type': 'application/json' },
    });
    expect([r.status, r.body.error.code, r.body.error.message]).toEqual([400, 'invalid_request', message]);
  });

  it('a missing key is still idempotency_key_required', async () => {
    const r = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      body: { name: 'no-key', permissions: ['exception.read'] },
    });
    expect([r.status, r.body.error.code]).toEqual([400, 'idempotency_key_required']);
  });
});

describe('a tenant id in upper case (RFC 9562: UUIDs are case-insensitive on input)', () => {
  const upper = treasury.toUpperCase();
  const securityEvents = async () =>
    ((await call(sandbox(), 'GET', '/_sandbox/security-events')).body.items as unknown[]).length;

  it.each([
    ['X-Tenant-Id', '/v1/roles', { tenant: upper }],
    ['the path', `/v1/tenants/${upper}/api-keys`, {}],
    ['the path and X-Tenant-Id in another case', `/v1/tenants/${upper}/api-keys`, { tenant: treasury }],
  ])("in %s is the caller's own tenant, and no security event", async (_name, path, headers) => {
    const before = await securityEvents();
    const r = await call(sandbox(), 'GET', path, { token: sandbox().adminToken, ...headers });
    expect([r.status, r.body.error]).toEqual([200, undefined]);
    expect(await securityEvents()).toBe(before);
  });

  it('is answered with the canonical lower-case id', async () => {
    const r = await call(sandbox(), 'GET', '/v1/me', { token: sandbox().adminToken, tenant: upper });
    expect([r.status, r.body.tenant_id]).toEqual([200, treasury]);
  });
});

describe('an unknown query parameter is refused, naming it and the known ones', () => {
  it.each([
    [
      '/v1/tenants?tier=free',
      'tier is an unknown query parameter; this operation takes: limit, cursor, role, subscription_tier',
    ],
    [
      '/v1/role-assignments?roleid=tenant_admin',
      'roleid is an unknown query parameter; this operation takes: role_id, user_id, include_inactive, limit, cursor',
    ],
    ['/v1/roles/tenant_admin?verbose=1', 'verbose is an unknown query parameter; this operation takes none'],
    ['/_sandbox/security-events?kind=x', 'kind is an unknown query parameter; this operation takes none'],
  ])('GET %s', async (path, message) => {
    const r = await call(sandbox(), 'GET', path, admin());
    expect([r.status, r.body.error.code, r.body.error.message]).toEqual([400, 'invalid_request', message]);
  });

  it('a misspelled filter of the deliveries is refused rather than ignored', async () => {
    const webhooks = (await call(sandbox(), 'GET', '/v1/webhooks', admin())).body.items;
    const r = await call(sandbox(), 'GET', `/v1/webhooks/${webhooks[0].id}/deliveries?state=failed`, admin());
    expect([r.status, r.body.details ?? r.body.error.details]).toEqual([
      400,
      [
        {
          field: 'state',
          message: expect.stringMatching(/^is an unknown query parameter; this operation takes: .*status/),
        },
      ],
    ]);
  });

  it('known parameters are answered as before', async () => {
    const r = await call(sandbox(), 'GET', '/v1/tenants?subscription_tier=free&limit=2', admin());
    expect(r.status).toBe(200);
  });
});
