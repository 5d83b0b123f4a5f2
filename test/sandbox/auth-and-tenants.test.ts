import { describe, expect, it } from 'vitest';
import { DEMO_ORG, DEMO_TENANTS, OTHER_ORG, tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox({ tenants: 450 });
const treasury = tenantId('acme-treasury');
const wayne = tenantId('wayne-clearing');
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** The base64url character one bit away: the same bytes when that bit is a trailing one. */
const flipLowBit = (c: string) => BASE64URL[BASE64URL.indexOf(c) ^ 1]!;

describe('authentication and tenant checks', () => {
  it('answers every response, errors included, with X-Request-Id and the error body', async () => {
    const response = await call(sandbox(), 'GET', '/v1/me');
    expect(response.status).toBe(401);
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^req_[0-9a-f]{20}$/);
    expect(response.body).toEqual({
      error: { code: 'unauthenticated', message: expect.any(String), request_id: id },
    });
  });

  it.each([
    ['a malformed token', 'not-a-jwt', 401, 'invalid_token'],
    ['a token signed by another sandbox', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', 401, 'invalid_token'],
    ['an unknown API key', 'svc_pk_nope', 401, 'invalid_token'],
  ])('rejects %s', async (_name, token, status, code) => {
    const response = await call(sandbox(), 'GET', '/v1/me', { token });
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
  });

  // JWS compact serialization is unpadded base64url (RFC 7515 §2): the same signature with
  // padding, or with trailing bits the encoding never sets, is not the token that was issued.
  it.each([
    ['padding', (t: string) => `${t}=`],
    ['double padding', (t: string) => `${t}==`],
    ['padding inside the payload', (t: string) => t.replace(/\.([^.]+)\./, '.$1=.')],
    ['non-canonical trailing bits', (t: string) => `${t.slice(0, -1)}${flipLowBit(t.slice(-1))}`],
    ['a character outside base64url', (t: string) => `${t.slice(0, -1)}+`],
  ])('rejects a valid token altered by %s', async (_name, alter) => {
    const { token } = sandbox().issueToken('usr_admin');
    expect((await call(sandbox(), 'GET', '/v1/me', { token })).status).toBe(200);
    const response = await call(sandbox(), 'GET', '/v1/me', { token: alter(token) });
    expect([response.status, response.body.error.code, response.body.error.message]).toEqual([
      401,
      'invalid_token',
      'the access token is not valid for this sandbox',
    ]);
  });

  it.each([
    ['no credential', {}, 'Bearer realm="svc"'],
    ['another scheme', { headers: { authorization: 'Basic dXNyOnB3' } }, 'Bearer realm="svc"'],
    ['an invalid token', { token: 'not-a-jwt' }, 'Bearer realm="svc", error="invalid_token"'],
    ['an unknown API key', { token: 'svc_sk_nope' }, 'Bearer realm="svc", error="invalid_token"'],
    ['an expired token', { expired: true }, 'Bearer realm="svc", error="invalid_token"'],
  ])('challenges %s with WWW-Authenticate (RFC 6750 §3)', async (_name, options, challenge) => {
    const { expired, ...rest } = options as { expired?: boolean; token?: string };
    const token = expired ? sandbox().issueToken('usr_admin', { expiresInSeconds: -10 }).token : rest.token;
    const response = await call(sandbox(), 'GET', '/v1/reconciliations', {
      ...rest,
      ...(token ? { token } : {}),
      tenant: treasury,
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(challenge);
  });

  it('rejects an expired token with token_expired', async () => {
    const { token } = sandbox().issueToken('usr_admin', { expiresInSeconds: -10 });
    const response = await call(sandbox(), 'GET', '/v1/me', { token });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('token_expired');
  });

  it('refuses a tenant that is not in the token (403 tenant_forbidden)', async () => {
    const { token } = sandbox().issueToken('usr_viewer');
    const response = await call(sandbox(), 'GET', '/v1/reconciliations', { token, tenant: wayne });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('tenant_forbidden');
  });

  it("refuses a tenant named by anything but its id, the caller's own slug included: 400, no security event (review-c f4)", async () => {
    // Tenants are named by id (a UUID) in X-Tenant-Id and in paths: a slug is no id, whoever's it
    // is, so the answer says that, the same for every caller (nothing about the tenant is told).
    const events = () => sandbox().state.securityEvents.at(-1)?.id;
    const before = events();
    const notAnId = (ref: string) => ({
      status: 400,
      code: 'invalid_request',
      message: `${ref} is not a tenant id: tenants are named by their id (a UUID), in paths and in X-Tenant-Id; GET /v1/tenants lists each with its slug`,
    });
    const bruce = sandbox().issueToken('usr_bruce').token;
    for (const [token, ref] of [
      [sandbox().adminToken, 'acme-treasury'],
      [bruce, 'acme-treasury'],
      [sandbox().adminToken, 'no-such-tenant'],
    ] as const) {
      const header = await call(sandbox(), 'GET', '/v1/reconciliations', { token, tenant: ref });
      const path = await call(sandbox(), 'GET', `/v1/tenants/${ref}/api-keys`, { token });
      for (const r of [header, path]) {
        expect({ status: r.status, code: r.body.error?.code, message: r.body.error?.message }).toEqual(
          notAnId(ref),
        );
      }
    }
    const both = await call(sandbox(), 'GET', `/v1/tenants/${treasury}/api-keys`, {
      token: sandbox().adminToken,
      tenant: 'acme-treasury',
    });
    expect([both.status, both.body.error?.message]).toEqual([400, notAnId('acme-treasury').message]);
    expect(events()).toBe(before);
  });

  it('needs X-Tenant-Id on tenant-scoped endpoints', async () => {
    const response = await call(sandbox(), 'GET', '/v1/reconciliations', { token: sandbox().adminToken });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('tenant_header_required');
  });

  it('reads roles live: a viewer cannot write exceptions, an analyst can', async () => {
    const viewer = sandbox().issueToken('usr_viewer').token;
    const analyst = sandbox().issueToken('usr_analyst').token;
    const body = { name: 'x', idempotency_key: 'role-check' };
    const denied = await call(sandbox(), 'POST', '/v1/exceptions', {
      token: viewer,
      tenant: treasury,
      body,
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_role');
    const allowed = await call(sandbox(), 'POST', '/v1/exceptions', {
      token: analyst,
      tenant: treasury,
      body,
    });
    expect(allowed.status).toBe(201);
  });

  it('describes the caller at /v1/me', async () => {
    const { token } = sandbox().issueToken('usr_viewer');
    const response = await call(sandbox(), 'GET', '/v1/me', { token, tenant: tenantId('acme-ledger-uk') });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: 'usr_viewer',
      type: 'user',
      tenant_id: tenantId('acme-ledger-uk'),
      org: { id: DEMO_ORG, role: null },
      credential: { kind: 'jwt', scopes: null },
    });
    expect(response.body.tenants.map((t: { slug: string }) => t.slug)).toEqual([
      'acme-treasury',
      'acme-ledger-uk',
    ]);
  });

  it('accepts API keys bound to one tenant', async () => {
    const created = await call(sandbox(), 'POST', '/_sandbox/api-keys', {
      body: { tenant_id: treasury, kind: 'publishable' },
    });
    const key = created.body.key as string;
    expect(key).toMatch(/^svc_pk_/);
    const me = await call(sandbox(), 'GET', '/v1/me', { token: key });
    expect(me.body).toMatchObject({
      type: 'api_key',
      tenant_id: treasury,
      credential: { kind: 'publishable_key' },
    });
    const other = await call(sandbox(), 'GET', '/v1/reconciliations', { token: key, tenant: wayne });
    expect(other.status).toBe(403);
  });
});

describe('GET /v1/tenants', () => {
  const list = (query: string, options: { token?: string; org?: string } = {}) =>
    call(sandbox(), 'GET', `/v1/tenants${query}`, {
      token: options.token ?? sandbox().adminToken,
      ...options,
    });

  it("lists the credential's tenants in a stable order with the caller's role", async () => {
    const response = await list('');
    expect(response.status).toBe(200);
    expect(response.body.items.map((t: { slug: string }) => t.slug)).toEqual(
      DEMO_TENANTS.filter((t) => t.org === DEMO_ORG).map((t) => t.slug),
    );
    expect(response.body.items[0]).toEqual({
      id: treasury,
      slug: 'acme-treasury',
      display_name: 'Acme Treasury',
      default_currency: 'USD',
      time_zone: 'America/New_York',
      role: 'tenant_admin',
      created_at: '2024-01-15T09:00:00Z',
      subscription_tier: 'enterprise',
    });
    expect(response.body.next_cursor).toBeNull();
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?limit=abc', 'limit'],
    ['?subscription_tier=gold', 'subscription_tier'],
    ['?cursor=garbage', 'cursor'],
  ])('refuses %s with 400 and names the field', async (query, field) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(['invalid_request', 'invalid_cursor']).toContain(response.body.error.code);
    expect(response.body.error.details[0].field).toBe(field);
  });

  it('pages an org-wide list with opaque cursors: every tenant once, null at the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await list(query, { org: DEMO_ORG });
      expect(response.status).toBe(200);
      seen.push(...response.body.items.map((t: { id: string }) => t.id));
      cursor = response.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.length).toBe(455);
    expect(new Set(seen).size).toBe(455);
  });

  it('filters by tier and role, and binds cursors to their filters', async () => {
    const first = await list('?limit=10&subscription_tier=pro', { org: DEMO_ORG });
    expect(first.body.items).toHaveLength(10);
    expect(typeof first.body.next_cursor).toBe('string');
    expect(first.body.items.every((t: { subscription_tier: string }) => t.subscription_tier === 'pro')).toBe(
      true,
    );
    const next = await list(`?limit=10&subscription_tier=pro&cursor=${first.body.next_cursor}`, {
      org: DEMO_ORG,
    });
    expect(next.status).toBe(200);
    expect(next.body.items.length).toBeGreaterThan(0);
    const admins = await list('?role=tenant_admin', { org: DEMO_ORG });
    expect(admins.body.items.map((t: { slug: string }) => t.slug)).toHaveLength(5);
    const mismatched = await list(`?limit=10&subscription_tier=free&cursor=${first.body.next_cursor}`, {
      org: DEMO_ORG,
    });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body.error.code).toBe('invalid_cursor');
  });

  it('lets only an org_admin list across tenants, and logs it as a security event', async () => {
    const before = sandbox().state.securityEvents.length;
    const cross = await list('?limit=5', { org: DEMO_ORG });
    expect(
      cross.body.items.some((t: { role: string }) => t.role === 'org_admin') || cross.body.next_cursor,
    ).toBeTruthy();
    const page2 = await list(`?limit=200&cursor=${cross.body.next_cursor}`, { org: DEMO_ORG });
    expect(page2.body.items.length).toBeGreaterThan(0);
    expect(page2.body.items.every((t: { role: string }) => t.role === 'org_admin')).toBe(true);
    expect(sandbox().state.securityEvents.length).toBeGreaterThan(before);
    expect(sandbox().state.securityEvents.at(-1)).toMatchObject({
      kind: 'cross_tenant_list',
      actor: 'usr_admin',
    });

    const viewer = sandbox().issueToken('usr_viewer').token;
    const own = await list('', { token: viewer, org: DEMO_ORG });
    expect(own.body.items.map((t: { slug: string }) => t.slug)).toEqual(['acme-treasury', 'acme-ledger-uk']);
    const foreign = await list('', { token: viewer, org: OTHER_ORG });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('org_forbidden');
  });
});
