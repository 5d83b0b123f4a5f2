import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { codeTokens, createClient, TREASURY, tokenRequest } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// Updating and deleting OAuth clients (issue 13; `svc apply` builds on them in issue 14).
const sandbox = useSandbox();
const admin = () => ({ token: sandbox().adminToken, tenant: TREASURY });

async function tokensFor(client: { client_id: string; client_secret: string }, scope: string) {
  const r = await codeTokens(sandbox(), client, { scope });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { access_token: string; refresh_token: string };
}

describe('PATCH /v1/oauth/clients/{client_id}', () => {
  it('changes registration fields, checks the client as changed, and names the changed fields in the audit trail', async () => {
    const client = await createClient(sandbox());
    const r = await call(sandbox(), 'PATCH', `/v1/oauth/clients/${client.client_id}`, {
      ...admin(),
      body: {
        name: 'Vendor portal v2',
        redirect_uris: ['https://vendor.example/v2/callback'],
        token_lifetime_seconds: 600,
        scopes: ['read:exceptions', 'read:reconciliations'],
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      client_id: client.client_id,
      name: 'Vendor portal v2',
      redirect_uris: ['https://vendor.example/v2/callback'],
      token_lifetime_seconds: 600,
      pkce_required: true,
    });
    expect(r.body.client_secret).toBeUndefined();
    const trail = await call(
      sandbox(),
      'GET',
      `/v1/audit_trail?target_id=${client.client_id}&order=desc&limit=1`,
      admin(),
    );
    expect(trail.body.items[0]).toMatchObject({
      action: 'oauth_client.updated',
      target_type: 'oauth_client',
      changes: ['name', 'redirect_uris', 'scopes', 'token_lifetime_seconds'],
    });
  });

  it.each([
    [
      { redirect_uris: ['http://vendor.example/cb'] },
      'redirect_uris.0',
      /may use http only on a loopback host/,
    ],
    [
      { refresh_token_lifetime_seconds: 300, token_lifetime_seconds: 3600 },
      'refresh_token_lifetime_seconds',
      /at least/,
    ],
    [{ grant_types: ['refresh_token'] }, 'grant_types', /refresh_token needs authorization_code/],
    [{}, 'body', /must NOT have fewer than 1 properties/],
    [{ client_secret: 'mine' }, 'client_secret', /unknown field/],
  ])('refuses %j with 400 naming the field', async (body, field, message) => {
    const client = await createClient(sandbox());
    const r = await call(sandbox(), 'PATCH', `/v1/oauth/clients/${client.client_id}`, { ...admin(), body });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error.details[0].field).toBe(field);
    expect(r.body.error.details[0].message).toMatch(message);
  });

  it("takes a removed scope away from the client's tokens at their next call", async () => {
    const client = await createClient(sandbox(), { scopes: ['read:exceptions', 'read:reconciliations'] });
    const { access_token } = await tokensFor(client, 'read:exceptions read:reconciliations');
    const read = (path: string) => call(sandbox(), 'GET', path, { token: access_token, tenant: TREASURY });
    expect((await read('/v1/exceptions')).status).toBe(200);
    await call(sandbox(), 'PATCH', `/v1/oauth/clients/${client.client_id}`, {
      ...admin(),
      body: { scopes: ['read:reconciliations'] },
    });
    const refused = await read('/v1/exceptions');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'insufficient_scope']);
    expect((await read('/v1/reconciliations')).status).toBe(200);
  });
});

describe('DELETE /v1/oauth/clients/{client_id}', () => {
  it('removes the client: its secret, refresh tokens and access tokens stop working at once', async () => {
    const client = await createClient(sandbox(), { scopes: ['read:exceptions'] });
    const tokens = await tokensFor(client, 'read:exceptions');
    const deleted = await call(sandbox(), 'DELETE', `/v1/oauth/clients/${client.client_id}`, admin());
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({
      client_id: client.client_id,
      deleted: true,
      deleted_at: expect.any(String),
    });

    const access = await call(sandbox(), 'GET', '/v1/exceptions', {
      token: tokens.access_token,
      tenant: TREASURY,
    });
    expect([access.status, access.body.error.code]).toEqual([401, 'invalid_token']);
    const refresh = await tokenRequest(sandbox(), {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      client_secret: client.client_secret,
      refresh_token: tokens.refresh_token,
    });
    expect([refresh.status, refresh.body.error]).toEqual([401, 'invalid_client']);
    const again = await call(sandbox(), 'DELETE', `/v1/oauth/clients/${client.client_id}`, admin());
    expect(again.status).toBe(404);
    const get = await call(sandbox(), 'GET', `/v1/oauth/clients/${client.client_id}`, admin());
    expect(get.status).toBe(404);
    const trail = await call(sandbox(), 'GET', `/v1/audit_trail?target_id=${client.client_id}`, admin());
    expect(trail.body.items.map((e: { action: string }) => e.action)).toEqual([
      'oauth_client.created',
      // The approval the test's tokens came from (attack15 F7).
      'oauth_client.authorized',
      'oauth_client.deleted',
    ]);
  });

  it('cannot reach another tenant’s clients', async () => {
    const client = await createClient(sandbox());
    const other = { token: sandbox().adminToken, tenant: tenantId('acme-payments-eu') };
    const r = await call(sandbox(), 'DELETE', `/v1/oauth/clients/${client.client_id}`, other);
    expect([r.status, r.body.error.code]).toEqual([404, 'oauth_client_not_found']);
  });
});

// s11 review-b 2: `svc login --client-id svc-cli` was warned that the client it then logged in
// with "was not found": the first-party client is every tenant's login client, so reading it
// finds it (tenant_id null: the platform's, not the tenant's), and changing it is refused as such.
describe('the first-party client svc-cli', () => {
  it.each(['acme-treasury', 'acme-payments-eu'])('GET in %s finds it, with tenant_id null', async (slug) => {
    const r = await call(sandbox(), 'GET', '/v1/oauth/clients/svc-cli', {
      token: sandbox().adminToken,
      tenant: tenantId(slug),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ client_id: 'svc-cli', tenant_id: null, pkce_required: true });
    expect(r.body.client_secret).toBeUndefined();
  });

  it('is not listed among the tenant’s clients', async () => {
    const r = await call(sandbox(), 'GET', '/v1/oauth/clients', admin());
    expect(r.body.items.map((c: { client_id: string }) => c.client_id)).not.toContain('svc-cli');
  });

  it.each([
    ['PATCH', '/v1/oauth/clients/svc-cli', { name: 'mine now' }],
    ['DELETE', '/v1/oauth/clients/svc-cli', undefined],
    ['POST', '/v1/oauth/clients/svc-cli/rotate-secret', { idempotency_key: 'first-party-rotate' }],
  ])(
    '%s %s: refused as the platform’s own (403 oauth_client_first_party), unchanged',
    async (method, path, body) => {
      const r = await call(sandbox(), method, path, { ...admin(), ...(body ? { body } : {}) });
      expect([r.status, r.body.error.code]).toEqual([403, 'oauth_client_first_party']);
      const now = await call(sandbox(), 'GET', '/v1/oauth/clients/svc-cli', admin());
      expect(now.body).toMatchObject({ name: 'svc CLI', secret_rotated_at: null });
    },
  );
});
