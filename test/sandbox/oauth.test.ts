// Over 300 lines: the sandbox's OAuth endpoints against the reference's rules, one rule per test.
import { describe, expect, it } from 'vitest';
import { decodeJwtClaims } from '../../src/auth/jwt.js';
import { challengeScope } from '../../src/sandbox/plugins/auth.js';
import { tenantId } from '../../src/sandbox/seed.js';
import {
  authorizationCode,
  authorizeUrl,
  codeTokens,
  consent,
  createClient,
  pkce,
  TREASURY,
  tokenRequest,
} from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();

const exchange = (client: any, extra: Record<string, string | undefined> = {}) =>
  codeTokens(sandbox(), client, {}, extra);

describe('POST /v1/oauth/clients', () => {
  it('creates a client, returns the secret once with the warning, and keeps only its hash', async () => {
    const client = await createClient(sandbox(), { description: 'Reads reconciliations' });
    expect(client).toMatchObject({
      client_id: expect.stringMatching(/^cli_[0-9a-f]{24}$/),
      client_secret: expect.stringMatching(/^svc_cs_[A-Za-z0-9_-]{43}$/),
      warning: expect.stringContaining('not'),
      name: 'Vendor portal',
      description: 'Reads reconciliations',
      grant_types: ['authorization_code', 'refresh_token'],
      scopes: ['read:reconciliations', 'read:exceptions'],
      token_lifetime_seconds: 3600,
      refresh_token_lifetime_seconds: 2592000,
      pkce_required: true,
      secret_rotated_at: null,
      tenant_id: TREASURY,
    });
    const stored = JSON.stringify([...sandbox().state.oauth.clients.values()]);
    expect(stored).not.toContain(client.client_secret);
    const fetched = await call(sandbox(), 'GET', `/v1/oauth/clients/${client.client_id}`, {
      token: sandbox().adminToken,
      tenant: TREASURY,
    });
    expect(fetched.status).toBe(200);
    expect(fetched.text).not.toContain('svc_cs_');
    expect(fetched.body.client_secret).toBeUndefined();
    const list = await call(sandbox(), 'GET', '/v1/oauth/clients', {
      token: sandbox().adminToken,
      tenant: TREASURY,
    });
    expect(list.body.items.map((c: any) => c.client_id)).toContain(client.client_id);
    expect(list.text).not.toContain('svc_cs_');
  });

  const valid = {
    name: 'x',
    redirect_uris: ['https://a.example/cb'],
    scopes: ['read:exceptions'],
  };
  it.each([
    ['http on a public host', { redirect_uris: ['http://vendor.example/cb'] }, 'redirect_uris.0'],
    ['a relative redirect URI', { redirect_uris: ['/callback'] }, 'redirect_uris.0'],
    ['a fragment', { redirect_uris: ['https://a.example/cb#frag'] }, 'redirect_uris.0'],
    ['another scheme', { redirect_uris: ['javascript:alert(1)'] }, 'redirect_uris.0'],
    ['user info', { redirect_uris: ['https://u:p@a.example/cb'] }, 'redirect_uris.0'],
    ['a wildcard host', { redirect_uris: ['https://*.example.com/cb'] }, 'redirect_uris.0'],
    ['a wildcard label', { redirect_uris: ['https://app.*.example/cb'] }, 'redirect_uris.0'],
    ['a host mixing scripts', { redirect_uris: ['https://exаmple.com/cb'] }, 'redirect_uris.0'],
    [
      'a punycode host mixing scripts',
      { redirect_uris: ['https://xn--exmple-4nf.com/cb'] },
      'redirect_uris.0',
    ],
    [
      'a repeated redirect URI',
      { redirect_uris: ['https://a.example/cb', 'https://a.example/cb'] },
      'redirect_uris.1',
    ],
    [
      'one redirect URI in two spellings',
      { redirect_uris: ['https://a.example/cb', 'HTTPS://A.EXAMPLE:443/cb'] },
      'redirect_uris.1',
    ],
    ['no redirect URI', { redirect_uris: [] }, 'redirect_uris'],
    ['an unknown scope', { scopes: ['write:everything'] }, 'scopes.0'],
    ['no scope', { scopes: [] }, 'scopes'],
    ['an unknown grant type', { grant_types: ['password'] }, 'grant_types.0'],
    ['refresh_token alone', { grant_types: ['refresh_token'] }, 'grant_types'],
    ['a too short access token lifetime', { token_lifetime_seconds: 59 }, 'token_lifetime_seconds'],
    ['a too long access token lifetime', { token_lifetime_seconds: 86401 }, 'token_lifetime_seconds'],
    ['a fractional lifetime', { token_lifetime_seconds: 100.5 }, 'token_lifetime_seconds'],
    [
      'a refresh lifetime shorter than the access token',
      { token_lifetime_seconds: 7200, refresh_token_lifetime_seconds: 3600 },
      'refresh_token_lifetime_seconds',
    ],
    [
      'a too long refresh lifetime',
      { refresh_token_lifetime_seconds: 31536001 },
      'refresh_token_lifetime_seconds',
    ],
    ['an empty name', { name: '' }, 'name'],
    ['a non-boolean pkce_required', { pkce_required: 'yes' }, 'pkce_required'],
    ['an unknown field', { client_secret: 'mine' }, 'client_secret'],
  ])('refuses %s (400 naming %s)', async (_name, change, field) => {
    const response = await call(sandbox(), 'POST', '/v1/oauth/clients', {
      token: sandbox().adminToken,
      tenant: TREASURY,
      body: { ...valid, ...change, idempotency_key: `bad-${Math.random()}` },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.details.map((d: any) => d.field)).toContain(field);
  });

  it.each([
    ['without an idempotency key', 'usr_admin', undefined, 400, 'idempotency_key_required'],
    ['as a tenant_analyst', 'usr_analyst', 'k1', 403, 'insufficient_role'],
  ])('refuses a creation %s', async (_name, user, key, status, code) => {
    const response = await call(sandbox(), 'POST', '/v1/oauth/clients', {
      token: sandbox().issueToken(user).token,
      tenant: TREASURY,
      body: { ...valid, ...(key ? { idempotency_key: key } : {}) },
    });
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
  });

  it('rotates the secret: a new one once, the old one refused, secret_rotated_at set', async () => {
    const client = await createClient(sandbox());
    const rotated = await call(sandbox(), 'POST', `/v1/oauth/clients/${client.client_id}/rotate-secret`, {
      token: sandbox().adminToken,
      tenant: TREASURY,
      body: { idempotency_key: `rotate-${client.client_id}` },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.client_secret).not.toBe(client.client_secret);
    expect(rotated.body.secret_rotated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(rotated.body.warning).toBeTruthy();
    const old = await exchange(client);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    const fresh = await exchange({ ...client, client_secret: rotated.body.client_secret });
    expect(fresh.status).toBe(200);
  });
});

describe('GET /oauth/authorize', () => {
  it('shows the consent page: client, tenant, scopes and the tenant members only, with no external resources', async () => {
    const client = await createClient(sandbox(), { name: 'Vendor <Portal>' });
    const response = await fetch(
      authorizeUrl(sandbox(), {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: 'http://127.0.0.1:8123/callback',
        scope: 'read:exceptions',
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html).toContain('Vendor &#60;Portal&#62;');
    expect(html).toContain('Acme Treasury (acme-treasury)');
    expect(html).toContain('<code>read:exceptions</code>');
    expect(html).not.toContain('read:reconciliations');
    expect(html).toContain('value="usr_admin"');
    expect(html).toContain('value="usr_viewer"');
    expect(html).not.toContain('usr_bruce');
    expect(html).not.toMatch(/<(script|img|link|iframe)\b|src=|url\(/i);
  });

  it.each([
    ['an unknown client', { client_id: 'cli_nope' }, 'Unknown client'],
    ['a missing redirect URI', { redirect_uri: undefined }, 'Invalid redirect URI'],
    [
      'a foreign redirect URI',
      { redirect_uri: 'https://evil.example/callback' },
      'Redirect URI not registered',
    ],
    [
      'another path on loopback',
      { redirect_uri: 'http://127.0.0.1:8123/other' },
      'Redirect URI not registered',
    ],
    [
      'another loopback host',
      { redirect_uri: 'http://localhost:8123/callback' },
      'Redirect URI not registered',
    ],
    [
      'an https URI with another query',
      { redirect_uri: 'https://vendor.example/callback?x=1' },
      'not registered',
    ],
    ['a port on an https URI', { redirect_uri: 'https://vendor.example:8443/callback' }, 'not registered'],
  ])('shows %s on the page and never redirects', async (_name, change, title) => {
    const client = await createClient(sandbox());
    const outcome = await consent(
      authorizeUrl(sandbox(), {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: 'http://127.0.0.1:8123/callback',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        ...change,
      }),
    );
    expect(outcome.status).toBe(400);
    expect(outcome.location).toBeUndefined();
    expect(outcome.html).toContain(title);
  });

  it('matches redirect URIs as the browser goes to them, and shows the punycode host on the consent page', async () => {
    const client = await createClient(sandbox(), {
      redirect_uris: [
        'https://bücher.example/cb',
        'HTTPS://Vendor.EXAMPLE:443/cb',
        'http://localhost:8080/cb',
      ],
    });
    const page = (redirectUri: string) =>
      consent(
        authorizeUrl(sandbox(), {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: redirectUri,
          state: 's',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
      );
    for (const uri of ['https://xn--bcher-kva.example/cb', 'https://bücher.example/cb']) {
      const { location } = await page(uri);
      expect(location?.origin, uri).toBe('https://xn--bcher-kva.example');
    }
    const shown = await fetch(
      authorizeUrl(sandbox(), {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: 'https://bücher.example/cb',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect(await shown.text()).toContain('<code>https://xn--bcher-kva.example/cb</code>');
    expect((await page('https://vendor.example/cb')).location?.origin).toBe('https://vendor.example');
    expect((await page('http://localhost:8080/cb')).location?.origin).toBe('http://localhost:8080');
    // localhost is no loopback IP literal: its port is compared (RFC 8252 §8.3).
    const other = await page('http://localhost:1/cb');
    expect([other.status, other.location]).toEqual([400, undefined]);
  });

  it.each([1, 8123, 65535])('accepts any port on a loopback redirect URI (%i)', async (port) => {
    const client = await createClient(sandbox());
    const { location } = await authorizationCode(sandbox(), client, {
      redirectUri: `http://127.0.0.1:${port}/callback`,
    });
    expect(location.origin).toBe(`http://127.0.0.1:${port}`);
  });

  it.each([
    ['plain', { code_challenge_method: 'plain' }, 'invalid_request', /S256/],
    ['a challenge without a method', { code_challenge_method: undefined }, 'invalid_request', /S256/],
    [
      'no challenge',
      { code_challenge: undefined, code_challenge_method: undefined },
      'invalid_request',
      /PKCE/,
    ],
    ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request', /43-character/],
    ['an unknown scope', { scope: 'read:exceptions admin' }, 'invalid_scope', /admin/],
    ['an implicit grant', { response_type: 'token' }, 'unsupported_response_type', /code/],
    ['no response type', { response_type: undefined }, 'invalid_request', /response_type/],
  ])('redirects %s back with an RFC 6749 error, state and iss', async (_name, change, error, description) => {
    const client = await createClient(sandbox());
    const outcome = await consent(
      authorizeUrl(sandbox(), {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: 'http://127.0.0.1:8123/callback',
        state: 'xyz',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        ...change,
      }),
    );
    expect(outcome.status).toBe(303);
    const params = outcome.location!.searchParams;
    expect(outcome.location!.origin + outcome.location!.pathname).toBe('http://127.0.0.1:8123/callback');
    expect(params.get('error')).toBe(error);
    expect(params.get('error_description')).toMatch(description);
    expect(params.get('state')).toBe('xyz');
    expect(params.get('iss')).toBe(sandbox().url);
    expect(params.get('code')).toBeNull();
  });

  it('redirects Deny with access_denied, and Approve with code, state and iss; a consent is answered once', async () => {
    const client = await createClient(sandbox());
    const url = authorizeUrl(sandbox(), {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:9000/callback',
      state: 'st',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const denied = await consent(url, { decision: 'deny' });
    expect(Object.fromEntries(denied.location!.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'the user denied the request',
      state: 'st',
      iss: sandbox().url,
    });
    const approved = await consent(url, { user: 'usr_viewer' });
    expect([...approved.location!.searchParams.keys()].sort()).toEqual(['code', 'iss', 'state']);
    const ticket = /name="ticket" value="([^"]+)"/.exec(approved.html)![1]!;
    const again = await fetch(`${sandbox().url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ticket, user_id: 'usr_viewer', decision: 'approve' }).toString(),
    });
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
  });
});

describe('POST /v1/oauth/token', () => {
  it('exchanges a code for tokens that work within their scopes and tenant', async () => {
    const client = await createClient(sandbox());
    const response = await exchange(client);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      access_token: expect.stringMatching(/^eyJ/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_rt_/),
      scope: 'read:reconciliations read:exceptions',
    });
    const claims = decodeJwtClaims(response.body.access_token)!;
    expect(claims).toMatchObject({ iss: sandbox().url, sub: 'usr_admin', client_id: client.client_id });
    expect(claims.tenants).toEqual([{ id: TREASURY, role: 'tenant_admin' }]);
    const token = response.body.access_token;
    const checks: Array<[string, string, string | undefined, number, string?]> = [
      ['GET', '/v1/reconciliations', TREASURY, 200],
      ['GET', '/v1/exceptions', TREASURY, 200],
      ['GET', '/v1/me', undefined, 200],
      ['GET', '/v1/accounts', TREASURY, 403, 'insufficient_scope'],
      ['GET', '/v1/tenants', undefined, 403, 'insufficient_scope'],
      ['POST', '/v1/reconciliations', TREASURY, 403, 'insufficient_scope'],
      ['POST', '/v1/roles', TREASURY, 403, 'insufficient_scope'],
      // Creating a client is for users themselves (attack17 A4), checked before scopes.
      ['POST', '/v1/oauth/clients', TREASURY, 403, 'user_required'],
      ['GET', '/v1/reconciliations', tenantId('acme-labs'), 403, 'tenant_forbidden'],
    ];
    for (const [method, path, tenant, status, code] of checks) {
      const r = await call(sandbox(), method, path, {
        token,
        ...(tenant ? { tenant } : {}),
        ...(method === 'POST' ? { body: { idempotency_key: `k-${path}`, name: 'n' } } : {}),
      });
      expect([method, path, r.status, r.body?.error?.code]).toEqual([method, path, status, code]);
      // RFC 6750 §3: a token that does not enable the request is told the scope it needs: one
      // scope, not the alternatives as if all were required (review28c F8).
      if (code === 'insufficient_scope') {
        expect(r.headers.get('www-authenticate'), path).toMatch(
          /^Bearer realm="svc", error="insufficient_scope", scope="[a-z:]+"$/,
        );
      }
    }
    const accounts = await call(sandbox(), 'GET', '/v1/accounts', { token, tenant: TREASURY });
    expect(accounts.headers.get('www-authenticate')).toBe(
      'Bearer realm="svc", error="insufficient_scope", scope="admin"',
    );
    const me = await call(sandbox(), 'GET', '/v1/me', { token });
    expect(me.body.credential).toMatchObject({
      kind: 'oauth_access_token',
      scopes: ['read:reconciliations', 'read:exceptions'],
      client_id: client.client_id,
    });
  });

  it('accepts client_secret_basic, and refuses both methods at once', async () => {
    const client = await createClient(sandbox());
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const ok = await exchange(client, { client_secret: undefined, client_id: undefined });
    expect(ok.status).toBe(401);
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client);
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    };
    const both = await tokenRequest(
      sandbox(),
      { ...form, client_secret: client.client_secret },
      { authorization: basic },
    );
    expect([both.status, both.body.error]).toEqual([400, 'invalid_request']);
    const viaBasic = await tokenRequest(sandbox(), form, { authorization: basic });
    expect(viaBasic.status).toBe(200);
  });

  it.each([
    ['a wrong secret', { client_secret: 'svc_cs_wrong' }, {}, 401, 'invalid_client'],
    ['no secret', { client_secret: undefined }, {}, 401, 'invalid_client'],
    ['an unknown client', { client_id: 'cli_unknown' }, {}, 401, 'invalid_client'],
    [
      'Basic with a wrong secret',
      { client_id: undefined, client_secret: undefined },
      { basic: 'wrong' },
      401,
      'invalid_client',
    ],
    ['a wrong verifier', { code_verifier: 'A'.repeat(43) }, {}, 400, 'invalid_grant'],
    ['a missing verifier', { code_verifier: undefined }, {}, 400, 'invalid_grant'],
    ['a malformed verifier', { code_verifier: 'short' }, {}, 400, 'invalid_grant'],
    ['another redirect URI', { redirect_uri: 'http://127.0.0.1:51235/callback' }, {}, 400, 'invalid_grant'],
    ['no redirect URI', { redirect_uri: undefined }, {}, 400, 'invalid_request'],
    ['an unknown code', { code: 'nope' }, {}, 400, 'invalid_grant'],
    ['an unsupported grant', { grant_type: 'password' }, {}, 400, 'unsupported_grant_type'],
    ['no grant type', { grant_type: undefined }, {}, 400, 'invalid_request'],
  ])('refuses %s', async (_name, change, options: { basic?: string }, status, error) => {
    const client = await createClient(sandbox());
    const headers: Record<string, string> = options.basic
      ? { authorization: `Basic ${Buffer.from(`${client.client_id}:${options.basic}`).toString('base64')}` }
      : {};
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client);
    const response = await tokenRequest(
      sandbox(),
      {
        grant_type: 'authorization_code',
        client_id: client.client_id,
        client_secret: client.client_secret,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        ...change,
      },
      headers,
    );
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error, error_description: expect.any(String) });
    if (options.basic) expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('refuses a repeated parameter and a JSON body', async () => {
    const client = await createClient(sandbox());
    const repeated = await fetch(`${sandbox().url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=${client.client_id}`,
    });
    expect([repeated.status, ((await repeated.json()) as any).error]).toEqual([400, 'invalid_request']);
    const json = await call(sandbox(), 'POST', '/v1/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: 'x' },
    });
    expect([json.status, json.body.error]).toEqual([400, 'invalid_request']);
  });

  it('makes a code single-use: a second exchange fails and revokes the tokens of the first', async () => {
    const client = await createClient(sandbox());
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client);
    const form = {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      client_secret: client.client_secret,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    };
    const first = await tokenRequest(sandbox(), form);
    expect(first.status).toBe(200);
    const second = await tokenRequest(sandbox(), form);
    expect([second.status, second.body.error]).toEqual([400, 'invalid_grant']);
    expect(second.body.error_description).toBe(
      'the authorization code was already used; the tokens issued with it are revoked',
    );
    const me = await call(sandbox(), 'GET', '/v1/me', { token: first.body.access_token });
    expect([me.status, me.body.error.code]).toEqual([401, 'invalid_token']);
    const refresh = await tokenRequest(sandbox(), {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      client_secret: client.client_secret,
      refresh_token: first.body.refresh_token,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('uses a code up when its verifier is wrong', async () => {
    const client = await createClient(sandbox());
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client);
    const form = {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      client_secret: client.client_secret,
      code,
      redirect_uri: redirectUri,
    };
    expect((await tokenRequest(sandbox(), { ...form, code_verifier: 'B'.repeat(43) })).body.error).toBe(
      'invalid_grant',
    );
    // Exploratory test s8 (attacker 6): the retry was told "the tokens issued with it are
    // revoked", though none was issued: it says the earlier exchange failed, and why.
    const retry = await tokenRequest(sandbox(), { ...form, code_verifier: verifier });
    expect([retry.status, retry.body]).toEqual([
      400,
      {
        error: 'invalid_grant',
        error_description:
          'the authorization code was already presented, and that exchange failed (code_verifier does not match the code_challenge), so no token was issued with it; an authorization code is used once: start a new authorization',
      },
    ]);
    const first = await exchange(client);
    expect(first.status).toBe(200);
  });

  it('refuses a verifier when the authorization request had no challenge (PKCE downgrade)', async () => {
    const client = await createClient(sandbox(), { pkce_required: false });
    const run = async (code_verifier: string | undefined) => {
      const { code, redirectUri } = await authorizationCode(sandbox(), client, { pkce: null });
      return tokenRequest(sandbox(), {
        grant_type: 'authorization_code',
        client_id: client.client_id,
        client_secret: client.client_secret,
        code,
        redirect_uri: redirectUri,
        code_verifier,
      });
    };
    expect((await run(pkce().verifier)).body.error).toBe('invalid_grant');
    expect((await run(undefined)).status).toBe(200);
  });

  it('lets the first-party svc-cli client in as a public client with PKCE and every tenant', async () => {
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), { client_id: 'svc-cli' });
    const response = await tokenRequest(sandbox(), {
      grant_type: 'authorization_code',
      client_id: 'svc-cli',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(response.status).toBe(200);
    expect(response.body.scope).toBe('read:reconciliations read:exceptions read:tenants admin');
    const tenants = await call(sandbox(), 'GET', '/v1/tenants', { token: response.body.access_token });
    expect(tenants.status).toBe(200);
    expect(tenants.body.items).toHaveLength(5);
    const create = await call(sandbox(), 'POST', '/v1/reconciliations', {
      token: response.body.access_token,
      tenant: TREASURY,
      body: { name: 'via admin scope', idempotency_key: 'admin-scope' },
    });
    expect(create.status).toBe(201);
  });

  it('rotates refresh tokens, and a reused one revokes the whole family', async () => {
    const client = await createClient(sandbox());
    const first = (await exchange(client)).body;
    const refresh = (token: string, extra: Record<string, string> = {}) =>
      tokenRequest(sandbox(), {
        grant_type: 'refresh_token',
        client_id: client.client_id,
        client_secret: client.client_secret,
        refresh_token: token,
        ...extra,
      });
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const narrowed = await refresh(second.body.refresh_token, { scope: 'read:exceptions' });
    expect([narrowed.status, narrowed.body.scope]).toEqual([200, 'read:exceptions']);
    const widened = await refresh(narrowed.body.refresh_token, { scope: 'read:exceptions read:tenants' });
    expect(widened.body.error).toBe('invalid_scope');
    const latest = narrowed.body;
    expect((await call(sandbox(), 'GET', '/v1/me', { token: latest.access_token })).status).toBe(200);

    const reuse = await refresh(first.refresh_token);
    expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect(reuse.body.error_description).toMatch(/already used.*revoked/);
    const me = await call(sandbox(), 'GET', '/v1/me', { token: latest.access_token });
    expect([me.status, me.body.error.code]).toEqual([401, 'invalid_token']);
    expect((await refresh(latest.refresh_token)).body.error).toBe('invalid_grant');
    const events = await call(sandbox(), 'GET', '/_sandbox/security-events');
    expect(events.body.items.map((e: any) => e.kind)).toContain('oauth_token_family_revoked');
    const stats = await call(sandbox(), 'GET', '/_sandbox/oauth/stats');
    expect(stats.body.grants['refresh_token reuse_detected']).toBeGreaterThanOrEqual(1);
  });

  it('narrows only the new access token on a refresh with scope: the refresh token keeps the grant (RFC 6749 §6)', async () => {
    const client = await createClient(sandbox());
    const first = (await exchange(client)).body;
    expect(first.scope).toBe('read:reconciliations read:exceptions');
    const refresh = (token: string, extra: Record<string, string> = {}) =>
      tokenRequest(sandbox(), {
        grant_type: 'refresh_token',
        client_id: client.client_id,
        client_secret: client.client_secret,
        refresh_token: token,
        ...extra,
      });
    const narrowed = await refresh(first.refresh_token, { scope: 'read:reconciliations' });
    expect([narrowed.status, narrowed.body.scope]).toEqual([200, 'read:reconciliations']);
    expect(decodeJwtClaims(narrowed.body.access_token)?.scope).toBe('read:reconciliations');
    const restored = await refresh(narrowed.body.refresh_token);
    expect([restored.status, restored.body.scope]).toEqual([200, 'read:reconciliations read:exceptions']);
    const again = await refresh(restored.body.refresh_token, {
      scope: 'read:exceptions read:reconciliations',
    });
    expect([again.status, again.body.scope]).toEqual([200, 'read:exceptions read:reconciliations']);
    const widened = await refresh(again.body.refresh_token, { scope: 'read:exceptions read:tenants' });
    expect([widened.status, widened.body.error, widened.body.error_description]).toEqual([
      400,
      'invalid_scope',
      'scope may only narrow the original grant (read:reconciliations read:exceptions); not granted: read:tenants',
    ]);
  });

  it('refuses a secret sent for the public client svc-cli (invalid_client), in the body or as Basic', async () => {
    const form = { grant_type: 'refresh_token', client_id: 'svc-cli', refresh_token: 'svc_rt_unknown' };
    const alone = await tokenRequest(sandbox(), form);
    expect([alone.status, alone.body.error]).toEqual([400, 'invalid_grant']);
    const withSecret = await tokenRequest(sandbox(), { ...form, client_secret: 'anything' });
    expect([withSecret.status, withSecret.body]).toEqual([
      401,
      {
        error: 'invalid_client',
        error_description:
          'svc-cli is a public client and has no secret: send its client_id alone (it proves itself with PKCE)',
      },
    ]);
    const basic = await fetch(new URL('/v1/oauth/token', sandbox().url), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('svc-cli:anything').toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'svc_rt_unknown' }),
    });
    expect([
      basic.status,
      ((await basic.json()) as { error: string }).error,
      basic.headers.get('www-authenticate'),
    ]).toEqual([401, 'invalid_client', 'Basic realm="svc sandbox"']);
  });

  it('does not issue refresh tokens to a client without the refresh_token grant', async () => {
    const client = await createClient(sandbox(), { grant_types: ['authorization_code'] });
    const response = await exchange(client);
    expect(response.status).toBe(200);
    expect(response.body.refresh_token).toBeUndefined();
  });

  // Moves the sandbox clock: keep these last in the file.
  it('lets codes expire after 60 s and access tokens after token_lifetime_seconds, on the sandbox clock', async () => {
    const client = await createClient(sandbox(), { token_lifetime_seconds: 120 });
    const tokens = (await exchange(client)).body;
    expect(tokens.expires_in).toBe(120);
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client);
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 61 } });
    const late = await tokenRequest(sandbox(), {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      client_secret: client.client_secret,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect([late.body.error, late.body.error_description]).toEqual([
      'invalid_grant',
      'the authorization code has expired',
    ]);
    expect((await call(sandbox(), 'GET', '/v1/me', { token: tokens.access_token })).status).toBe(200);
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 60 } });
    const expired = await call(sandbox(), 'GET', '/v1/me', { token: tokens.access_token });
    expect([expired.status, expired.body.error.code]).toEqual([401, 'token_expired']);
  });
});

describe('the insufficient_scope challenge', () => {
  // review28c F8: RFC 6750 §3 reads `scope` as all required; alternatives are one scope, not a list.
  it('names one scope that allows the operation, or admin', () => {
    expect(challengeScope({ scopes: ['read:reconciliations', 'read:exceptions'] })).toBe(
      'read:reconciliations',
    );
    expect(challengeScope({ scopes: ['read:tenants'] })).toBe('read:tenants');
    expect(challengeScope({ scopes: [] })).toBe('admin');
  });
});
