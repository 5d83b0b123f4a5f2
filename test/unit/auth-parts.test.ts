// Over 300 lines: mostly tables of exact inputs and outputs, one block per function, so a
// module's whole contract reads in one file.
// The small parts of logging in (src/auth): reading an authorization response, JWT claims, the
// server's metadata addresses, secret flags, and where a stored credential may be sent. Each
// outcome and message exactly: they decide whether a credential leaves the machine.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAuthorizationResponse } from '../../src/auth/authorization-response.js';
import { credentialsFor, staticCredentials, storedCredentialSecrets } from '../../src/auth/credentials.js';
import { decodeJwtClaims, jwtExpiry } from '../../src/auth/jwt.js';
import {
  deviceEndpoint,
  issuerOf,
  metadataUrl,
  notFound,
  serverMetadata,
  usableEndpoint,
} from '../../src/auth/metadata.js';
import { createCodeVerifier, createState } from '../../src/auth/pkce.js';
import { checkSecretFlags } from '../../src/auth/secret-input.js';
import { ConfigStore } from '../../src/config/store.js';
import { AuthError, UsageError } from '../../src/errors.js';
import type { ApiClient } from '../../src/http/client.js';
import { apiErrorFrom } from '../../src/http/errors.js';
import { tempDir } from '../helpers/temp.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: unknown) =>
  `${b64({ alg: 'none' })}.${typeof claims === 'string' ? claims : b64(claims)}.sig`;

describe('readAuthorizationResponse', () => {
  const expected = { state: 'state-123', issuers: ['http://127.0.0.1:4010/', 'https://auth.example'] };
  const read = (query: string) => readAuthorizationResponse(new URLSearchParams(query), expected);
  const failure = (query: string) => {
    const r = read(query);
    if (r.kind !== 'failure') throw new Error(`not a failure: ${r.kind}`);
    return {
      message: r.error.message,
      code: r.error.code,
      serverCode: (r.error as { serverCode?: string }).serverCode,
      hint: r.error.hint,
      page: r.page,
      auth: r.error instanceof AuthError,
    };
  };

  it.each([
    ['code=c1', 'a response without a state was turned away'],
    ['code=c1&state=', 'a response without a state was turned away'],
    [
      'code=c1&state=other',
      'a response with the wrong state was turned away (possible cross-site request forgery)',
    ],
    [
      'code=c1&state=state-12',
      'a response with the wrong state was turned away (possible cross-site request forgery)',
    ],
    [
      'code=c1&state=state-123&state=state-123',
      'a response with the wrong state was turned away (possible cross-site request forgery)',
    ],
  ])('turns %j away', (query, reason) => {
    expect(read(query)).toEqual({ kind: 'stray', reason });
  });

  it.each([
    ['code=c1&state=state-123', 'c1'],
    ['code=c1&state=state-123&iss=http%3A%2F%2F127.0.0.1%3A4010', 'c1'],
    ['code=c2&state=state-123&iss=https%3A%2F%2Fauth.example%2F%2F', 'c2'],
  ])('takes the code of %j', (query, code) => {
    expect(read(query)).toEqual({ kind: 'code', code });
  });

  it('refuses another issuer (RFC 9207)', () => {
    expect(failure('code=c1&state=state-123&iss=https%3A%2F%2Fevil.example')).toEqual({
      message: 'the authorization response comes from issuer "https://evil.example", not from this server',
      code: 'issuer_mismatch',
      hint: 'check --app-url and --base-url (RFC 9207 mix-up protection)',
      page: 'The response comes from another authorization server.',
      auth: true,
    });
  });

  it.each([
    [
      'error=access_denied&error_description=nope&state=state-123',
      {
        message: 'authorization was denied: access_denied (nope)',
        code: 'authorization_denied',
        serverCode: 'access_denied',
        hint: 'run the login again and choose Approve',
        page: 'You denied the request.',
        auth: true,
      },
    ],
    [
      'error=server_error&state=state-123&code=ignored',
      {
        message: 'authorization failed: server_error',
        code: 'authorization_error',
        serverCode: 'server_error',
        hint: undefined,
        page: 'The server answered server_error.',
        auth: true,
      },
    ],
    [
      'error=invalid_scope&error_description=&state=state-123',
      {
        message: 'authorization failed: invalid_scope',
        code: 'authorization_error',
        serverCode: 'invalid_scope',
        hint: undefined,
        page: 'The server answered invalid_scope.',
        auth: true,
      },
    ],
    [
      'state=state-123',
      {
        message: 'the authorization response has neither a code nor an error',
        code: 'code_missing',
        hint: undefined,
        page: 'The response has no authorization code.',
        auth: true,
      },
    ],
    [
      'state=state-123&code=',
      {
        message: 'the authorization response has neither a code nor an error',
        code: 'code_missing',
        hint: undefined,
        page: 'The response has no authorization code.',
        auth: true,
      },
    ],
  ])('ends the login on %j', (query, expected_) => {
    expect(failure(query)).toEqual(expected_);
  });
});

describe('JWT claims', () => {
  it.each([
    [jwt({ sub: 'u1', exp: 1_800_000_000 }), { sub: 'u1', exp: 1_800_000_000 }],
    ['opaque-token', undefined],
    ['a.b', undefined],
    ['a.b.c.d', undefined],
    [`x..z`, undefined],
    [jwt('!!!not-base64-json'), undefined],
    [jwt([1, 2]), undefined],
    [jwt(null), undefined],
    [jwt('"text"'), undefined],
  ])('decodeJwtClaims(%j)', (token, claims) => {
    expect(decodeJwtClaims(token)).toEqual(claims);
  });

  it.each([
    [jwt({ exp: 1_800_000_000 }), '2027-01-15T08:00:00.000Z'],
    [jwt({ exp: '1800000000' }), undefined],
    [jwt({}), undefined],
    ['opaque', undefined],
  ])('jwtExpiry(%j) is %j', (token, expiry) => {
    expect(jwtExpiry(token)).toBe(expiry);
  });
});

describe('authorization server metadata', () => {
  it.each([
    ['http://127.0.0.1:4010/v1/oauth/token', 'http://127.0.0.1:4010/'],
    ['https://auth.example/tenant-a/v1/oauth/token', 'https://auth.example/tenant-a'],
    ['https://auth.example/token', 'https://auth.example/'],
  ])('issuerOf(%j) is %j', (tokenUrl, issuer) => {
    expect(issuerOf(tokenUrl).href).toBe(issuer);
  });

  it.each([
    ['http://127.0.0.1:4010/', 'http://127.0.0.1:4010/.well-known/oauth-authorization-server'],
    ['https://auth.example/tenant-a', 'https://auth.example/.well-known/oauth-authorization-server/tenant-a'],
    [
      'https://auth.example/tenant-a/',
      'https://auth.example/.well-known/oauth-authorization-server/tenant-a',
    ],
  ])('metadataUrl(%j) is %j', (issuer, url) => {
    expect(metadataUrl(new URL(issuer))).toBe(url);
  });

  it.each([
    [404, true],
    [405, true],
    [400, false],
    [500, false],
  ])('a %i means no metadata: %s', (status, none) => {
    expect(notFound(apiErrorFrom(status, '', {}, ''))).toBe(none);
  });

  it('a non-API error is not "no metadata"', () => {
    expect(notFound(new Error('404'))).toBe(false);
  });

  it.each([
    ['https://auth.example/revoke', 'https://auth.example/revoke'],
    ['http://127.0.0.1:4010/v1/oauth/revoke', 'http://127.0.0.1:4010/v1/oauth/revoke'],
    ['http://localhost:1/r', 'http://localhost:1/r'],
    ['http://[::1]:1/r', 'http://[::1]:1/r'],
    ['http://auth.example/revoke', undefined],
    ['ftp://127.0.0.1/r', undefined],
    ['not a url', undefined],
    [42, undefined],
    // Only a string: an array's text would make a URL of it.
    [['https://auth.example/revoke'], undefined],
  ])('usableEndpoint(%j) is %j', (value, usable) => {
    expect(usableEndpoint(value)).toBe(usable);
  });

  it('deviceEndpoint takes only a string too', () => {
    expect(deviceEndpoint(['https://auth.example/device'], false)).toBeUndefined();
    expect(deviceEndpoint('https://auth.example/device', false)).toBe('https://auth.example/device');
  });

  describe('serverMetadata', () => {
    const TOKEN = 'https://auth.example/tenant-a/v1/oauth/token';
    const AT = 'https://auth.example/.well-known/oauth-authorization-server/tenant-a';
    const answering = (answer: () => unknown) =>
      ({
        request: async (options: { path: string }) => {
          expect(options).toMatchObject({ method: 'GET', path: AT, auth: false, tenant: null });
          return { data: answer() };
        },
      }) as unknown as ApiClient;
    const other = (names: string) => ({
      otherIssuer: { at: AT, names, expected: 'https://auth.example/tenant-a' },
    });

    it('uses the metadata of the issuer it names', async () => {
      const data = { issuer: 'https://auth.example/tenant-a', revocation_endpoint: 'https://auth.example/r' };
      expect(
        await serverMetadata(
          answering(() => data),
          TOKEN,
        ),
      ).toBe(data);
    });

    it.each([
      ['another issuer', { issuer: 'https://proxy.example/tenant-a' }, 'https://proxy.example/tenant-a'],
      ['an issuer that is no URL', { issuer: 'tenant-a' }, 'tenant-a'],
      ['no issuer', {}, 'none'],
      ['an issuer that is no string', { issuer: 5 }, 'none'],
      ['a null body', null, 'none'],
    ])('refuses metadata naming %s, and says whom it names', async (_, data, names) => {
      expect(
        await serverMetadata(
          answering(() => data),
          TOKEN,
        ),
      ).toEqual(other(names));
    });

    it('is null when the server has none (404), and lets another failure through', async () => {
      const failing = (status: number) =>
        answering(() => {
          throw apiErrorFrom(status, '', {}, '');
        });
      expect(await serverMetadata(failing(404), TOKEN)).toBeNull();
      await expect(serverMetadata(failing(500), TOKEN)).rejects.toMatchObject({ status: 500 });
    });
  });
});

describe('secret flags and random values', () => {
  it.each([
    [
      { file: 'f', stdin: true },
      '--client-secret-file and --client-secret-stdin cannot be combined; pick one',
    ],
    [{ file: '  ' }, '--client-secret-file needs a path'],
    [{ file: '' }, '--client-secret-file needs a path'],
  ])('refuses %j', (flags, message) => {
    expect(() => checkSecretFlags('client-secret', flags)).toThrow(new UsageError(message));
  });

  it.each([[{}], [{ file: 'f' }], [{ stdin: true }], [{ file: 'f', stdin: false }]])(
    'accepts %j',
    (flags) => {
      expect(checkSecretFlags('client-secret', flags)).toBe(flags);
    },
  );

  it('makes 43-character base64url verifiers and states, never twice the same', () => {
    for (const make of [createCodeVerifier, createState]) {
      const a = make();
      expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(make()).not.toBe(a);
    }
  });
});

describe('where a stored credential goes', () => {
  const store = () => new ConfigStore(join(tempDir('svc-cred-'), 'svc'));
  const token = { type: 'token' as const, access_token: 'stored-token-123', obtained_at: 'x' };
  const target = new URL('http://127.0.0.1:4010/v1/me');

  it('SVC_TOKEN wins, trimmed, and names itself', async () => {
    const s = store();
    await s.setCredential('p', token);
    const source = credentialsFor({ SVC_TOKEN: ' env-token \n' }, s, 'p');
    expect(source.origin).toBe('SVC_TOKEN');
    expect(await source.token(target)).toBe('env-token');
    expect(source.secrets()).toEqual(['env-token']);
  });

  it('a stored token is served as stored and named by its profile', async () => {
    const s = store();
    await s.setCredential('p', { ...token, refresh_token: 'refresh-456', client_secret: 'cs-789' });
    const source = credentialsFor({ SVC_TOKEN: '' }, s, 'p');
    expect(source.origin).toBe('profile "p"');
    expect(await source.token()).toBe('stored-token-123');
    expect(source.secrets()).toEqual(storedCredentialSecrets(s.credential('p')));
    expect(source.secrets()).toEqual(expect.arrayContaining(['stored-token-123', 'refresh-456', 'cs-789']));
    expect(await credentialsFor({}, s, 'none').token()).toBeUndefined();
  });

  it('staticCredentials without a token has no secrets', async () => {
    expect(staticCredentials(undefined, 'x').secrets()).toEqual([]);
    expect(await staticCredentials(undefined, 'x').token()).toBeUndefined();
  });

  it('goes only to the origin it was stored for', async () => {
    const s = store();
    await s.setCredential('p', { ...token, origin: 'http://127.0.0.1:4010' });
    const notices: string[] = [];
    const source = credentialsFor({}, s, 'p', undefined, {
      profileBaseUrl: () => undefined,
      notice: (m) => notices.push(m),
      loginCommand: () => 'svc login',
    });
    expect(await source.token(target)).toBe('stored-token-123');
    expect(await source.token(target)).toBe('stored-token-123');
    expect(await source.token()).toBe('stored-token-123');
    const error = await source.token(new URL('https://api.example.com/v1/me')).catch((e: AuthError) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({
      message:
        'profile "p" holds a credential for http://127.0.0.1:4010, not for https://api.example.com; svc sends a stored credential only to the origin it was stored for',
      code: 'credential_origin_mismatch',
      hint: 'log in there with `svc login --base-url https://api.example.com` (add -p NAME to keep this profile as it is), or set SVC_TOKEN',
    });
    expect(notices).toEqual([]);
  });

  it('binds an old credential on first use: to the profile’s base_url silently, else to the target with a notice', async () => {
    const s = store();
    await s.setCredential('p', token);
    const notices: string[] = [];
    const quiet = credentialsFor({}, s, 'p', undefined, {
      profileBaseUrl: () => 'http://127.0.0.1:4010/api',
      notice: (m) => notices.push(m),
      loginCommand: () => 'svc login',
    });
    expect(await quiet.token(target)).toBe('stored-token-123');
    expect(s.credential('p')?.origin).toBe('http://127.0.0.1:4010');
    expect(notices).toEqual([]);

    const s2 = store();
    await s2.setCredential('q', token);
    const told = credentialsFor({}, s2, 'q', undefined, {
      profileBaseUrl: () => undefined,
      notice: (m) => notices.push(m),
      loginCommand: () => 'svc login',
    });
    expect(await told.token(new URL('http://localhost:9/v1/me'))).toBe('stored-token-123');
    expect(s2.credential('q')?.origin).toBe('http://localhost:9');
    expect(notices).toEqual([
      'bound the credential of profile "q" to http://localhost:9 (its first use; it was stored before svc recorded origins)',
    ]);
    // Bound: another origin is now refused.
    await expect(told.token(target)).rejects.toThrow('profile "q" holds a credential for http://localhost:9');
  });

  it('a base_url elsewhere binds there, and the first use elsewhere is refused', async () => {
    const s = store();
    await s.setCredential('p', token);
    const source = credentialsFor({}, s, 'p', undefined, {
      profileBaseUrl: () => 'https://api.example.com',
      notice: () => {},
      loginCommand: () => 'svc login',
    });
    await expect(source.token(target)).rejects.toThrow(
      'profile "p" holds a credential for https://api.example.com, not for http://127.0.0.1:4010',
    );
    expect(s.credential('p')?.origin).toBe('https://api.example.com');
  });

  it('with no credential, binding says nothing and the source reports none', async () => {
    const s = store();
    const source = credentialsFor({}, s, 'p', undefined, {
      profileBaseUrl: () => undefined,
      notice: () => {},
      loginCommand: () => 'svc login',
    });
    expect(await source.token(target)).toBeUndefined();
  });
});
