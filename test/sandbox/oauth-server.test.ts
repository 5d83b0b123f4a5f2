import { describe, expect, it } from 'vitest';
import { CLI_CLIENT_ID } from '../../src/sandbox/domain/oauth.js';
import { codeTokens, createClient, TREASURY, tokenRequest } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();

async function tokensFor(client: { client_id: string; client_secret?: string }) {
  const r = await codeTokens(sandbox(), client, {
    scope: client.client_secret ? 'read:reconciliations' : 'admin',
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { access_token: string; refresh_token: string };
}

async function revoke(params: Record<string, string | undefined>) {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) form.append(k, v);
  const response = await fetch(`${sandbox().url}/v1/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

describe('authorization server metadata (RFC 8414)', () => {
  it('publishes the issuer (the base URL), S256 only, and every endpoint', async () => {
    const r = await call(sandbox(), 'GET', '/.well-known/oauth-authorization-server');
    expect(r.status).toBe(200);
    const base = sandbox().url;
    expect(r.body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/v1/oauth/token`,
      revocation_endpoint: `${base}/v1/oauth/revoke`,
      device_authorization_endpoint: `${base}/v1/oauth/device_authorization`,
      response_types_supported: ['code'],
      grant_types_supported: [
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:device_code',
      ],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(r.body.scopes_supported).toContain('read:reconciliations');
  });
});

describe('token revocation (RFC 7009)', () => {
  it('revoking a refresh token ends its access tokens and its refresh', async () => {
    const client = await createClient(sandbox());
    const tokens = await tokensFor(client);
    const before = await call(sandbox(), 'GET', '/v1/reconciliations', {
      token: tokens.access_token,
      tenant: TREASURY,
    });
    expect(before.status).toBe(200);
    const r = await revoke({
      token: tokens.refresh_token,
      token_type_hint: 'refresh_token',
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect([r.status, r.body]).toEqual([200, undefined]);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const after = await call(sandbox(), 'GET', '/v1/reconciliations', {
      token: tokens.access_token,
      tenant: TREASURY,
    });
    expect([after.status, after.body.error.code]).toEqual([401, 'invalid_token']);
    const refreshed = await tokenRequest(sandbox(), {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      client_secret: client.client_secret,
      refresh_token: tokens.refresh_token,
    });
    expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('revokes an access token (and its family) for the public first-party client', async () => {
    const tokens = await tokensFor({ client_id: CLI_CLIENT_ID });
    const r = await revoke({ token: tokens.access_token, client_id: CLI_CLIENT_ID });
    expect(r.status).toBe(200);
    expect((await call(sandbox(), 'GET', '/v1/me', { token: tokens.access_token })).status).toBe(401);
  });

  it.each([
    ['an unknown token', 'svc_rt_not-a-token'],
    ['a malformed JWT', 'a.b.c'],
  ])('answers 200 to %s (invalid tokens are no error)', async (_name, token) => {
    const r = await revoke({ token, client_id: CLI_CLIENT_ID });
    expect(r.status).toBe(200);
  });

  it('refuses a token issued to another client, and leaves it working', async () => {
    const owner = await createClient(sandbox());
    const other = await createClient(sandbox());
    const tokens = await tokensFor(owner);
    const r = await revoke({
      token: tokens.refresh_token,
      client_id: other.client_id,
      client_secret: other.client_secret,
    });
    expect([r.status, r.body]).toEqual([
      400,
      { error: 'invalid_request', error_description: 'the token was not issued to this client' },
    ]);
    const still = await call(sandbox(), 'GET', '/v1/reconciliations', {
      token: tokens.access_token,
      tenant: TREASURY,
    });
    expect(still.status).toBe(200);
  });

  it.each([
    ['no client', { token: 'x' }, 401, 'invalid_client'],
    ['a wrong secret', { token: 'x', client_id: 'CLIENT', client_secret: 'wrong' }, 401, 'invalid_client'],
    ['no token', { client_id: CLI_CLIENT_ID }, 400, 'invalid_request'],
  ])('refuses %s', async (_name, params, status, error) => {
    const client = await createClient(sandbox());
    const withClient = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, v === 'CLIENT' ? client.client_id : v]),
    );
    const r = await revoke(withClient);
    expect([r.status, r.body.error]).toEqual([status, error]);
  });
});
