import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  endReplacedSession,
  forgottenKey,
  type SessionEnd,
  sessionKey,
  unanswered,
  warnAboutKey,
  warnAboutSession,
} from '../../src/auth/end-session.js';
import { InterruptedError } from '../../src/errors.js';
import {
  ApiError,
  ConnectionError,
  ConnectionTimeoutError,
  OutcomeUnknownError,
} from '../../src/http/errors.js';
import { testContext, useFreshDirs } from '../helpers/context.js';
import { fillableDisk } from '../helpers/disk.js';

// What svc says when a session ends (src/auth/end-session.ts), one function at a time: which
// failures leave a revocation to retry, what is known of a forgotten API key, and the warnings
// and revoke commands that go with it.
const dirs = useFreshDirs('svc-end-session-');
const KEY = 'svc_pk_0123456789abcdef';
const JWT = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"usr_a"}').toString('base64url')}.s`;
const context = (env: Record<string, string> = {}, globals: Record<string, string> = {}) =>
  testContext({ env: { ...dirs(), ...env }, globals });

describe('unanswered: the server could not be asked, so a retry may still revoke', () => {
  const api = (status: number) => new ApiError({ status, message: `HTTP ${status}` });
  it.each([
    ['a connection error', new ConnectionError('refused'), true],
    ['a timeout', new ConnectionTimeoutError('no answer'), true],
    ['an unknown outcome', new OutcomeUnknownError(new ConnectionError('reset')), true],
    ['a 500', api(500), true],
    ['a 503', api(503), true],
    ['a 429', api(429), true],
    ['a 499', api(499), false],
    ['a 400', api(400), false],
    ['an unknown outcome cut by Ctrl-C', new OutcomeUnknownError(new InterruptedError('stopped')), false],
    ['Ctrl-C', new InterruptedError('stopped'), false],
    ['any other error', new Error('boom'), false],
  ])('%s: %s', (_, error, expected) => {
    expect(unanswered(error)).toBe(expected);
  });
});

describe('forgottenKey', () => {
  it('a key the platform refuses for good: nothing to revoke', () => {
    expect(forgottenKey(context().ctx, { state: 'rejected' })).toEqual({
      state: 'revoked_or_unknown',
      id: null,
      tenant: null,
      stopped_reason: null,
      revoke_command: null,
    });
  });

  it('a live key: its id, tenant and the command that revokes it', () => {
    expect(forgottenKey(context().ctx, { state: 'live', id: 'key_1', tenant: 'acme' })).toEqual({
      state: 'valid',
      id: 'key_1',
      tenant: 'acme',
      stopped_reason: null,
      revoke_command: 'svc tenants api-keys revoke acme key_1',
    });
  });

  it("a live key without a tenant takes the run's tenant, else a placeholder", () => {
    const live = { state: 'live', id: 'key_1', tenant: undefined } as const;
    expect(forgottenKey(context({ SVC_TENANT: 'beta' }).ctx, live)).toMatchObject({
      tenant: 'beta',
      revoke_command: 'svc tenants api-keys revoke beta key_1',
    });
    expect(forgottenKey(context().ctx, live)).toMatchObject({
      tenant: null,
      revoke_command: 'svc tenants api-keys revoke TENANT key_1',
    });
  });

  it('a stopped key: why it is stopped, and the same revoke command', () => {
    const stopped = {
      state: 'stopped',
      id: 'key_2',
      tenant: 'acme',
      reason: 'its issuer lost the role',
    } as const;
    expect(forgottenKey(context().ctx, stopped)).toEqual({
      state: 'stopped',
      id: 'key_2',
      tenant: 'acme',
      stopped_reason: 'its issuer lost the role',
      revoke_command: 'svc tenants api-keys revoke acme key_2',
    });
  });

  it("svc could not ask: unknown, the run's tenant, and no command (its id is not known)", () => {
    expect(forgottenKey(context({ SVC_TENANT: 'beta' }).ctx, undefined)).toEqual({
      state: 'unknown',
      id: null,
      tenant: 'beta',
      stopped_reason: null,
      revoke_command: null,
    });
    expect(forgottenKey(context().ctx, undefined).tenant).toBeNull();
  });

  describe('the revoke command names the platform when the run named one, or the key was for another', () => {
    const live = { state: 'live', id: 'key_1', tenant: 'acme' } as const;
    it('--base-url given: kept in the command', () => {
      expect(forgottenKey(context({}, { baseUrl: 'https://api.example' }).ctx, live).revoke_command).toBe(
        'svc --base-url https://api.example tenants api-keys revoke acme key_1',
      );
    });
    it('the base URL from the environment, and the key for it: left out', () => {
      const ctx = context({ SVC_BASE_URL: 'https://api.example' }).ctx;
      expect(forgottenKey(ctx, live).revoke_command).toBe('svc tenants api-keys revoke acme key_1');
      expect(forgottenKey(ctx, live, 'https://api.example').revoke_command).toBe(
        'svc tenants api-keys revoke acme key_1',
      );
    });
    it('-p given: the platform that profile is for, named (pasted under another login, it asks there)', () => {
      const ctx = context({ SVC_BASE_URL: 'https://api.example' }, { profile: 'work' }).ctx;
      expect(forgottenKey(ctx, live).revoke_command).toBe(
        'svc --base-url https://api.example tenants api-keys revoke acme key_1',
      );
    });
    it('a key for another platform than the run’s: that platform', () => {
      const ctx = context({ SVC_BASE_URL: 'https://api.example' }).ctx;
      expect(forgottenKey(ctx, live, 'https://other.example').revoke_command).toBe(
        'svc --base-url https://other.example tenants api-keys revoke acme key_1',
      );
      expect(forgottenKey(context().ctx, live, 'https://other.example').revoke_command).toBe(
        'svc --base-url https://other.example tenants api-keys revoke acme key_1',
      );
    });
  });
});

describe('sessionKey: only a removed API key is one', () => {
  const end = (over: Partial<SessionEnd>): SessionEnd => ({
    removed: true,
    revocation: { outcome: 'not_applicable' },
    credential: 'token',
    token: KEY,
    key: { state: 'rejected' },
    ...over,
  });
  it.each([
    ['nothing removed', { removed: false }],
    ['an OAuth session', { credential: 'oauth' as const }],
    ['a JWT', { token: JWT }],
  ])('%s: null', (_, over) => {
    expect(sessionKey(context().ctx, end(over))).toBeNull();
  });
  it('a removed API key: what is known of it', () => {
    expect(sessionKey(context().ctx, end({}))).toMatchObject({ state: 'revoked_or_unknown' });
  });
});

describe('warnAboutKey and warnAboutSession: the lines', () => {
  const BY = 'with the login of a user who holds api_key.manage (a key cannot revoke keys)';
  it('a refused key: one info line, nothing to revoke', () => {
    const run = context();
    warnAboutKey(run.ctx, KEY, { state: 'rejected' });
    expect(run.stderr()).toBe(
      'the platform no longer accepts the API key (it was revoked, or is unknown there): nothing is left to revoke\n',
    );
  });
  it('a live key, named as the caller says', () => {
    const run = context();
    warnAboutKey(run.ctx, KEY, { state: 'live', id: 'key_1', tenant: 'acme' }, 'the replaced API key');
    expect(run.stderr()).toBe(
      `warning: the replaced API key key_1 itself stays valid: svc only forgot it; revoke it ${BY}: \`svc tenants api-keys revoke acme key_1\`\n`,
    );
  });
  it('a stopped key: why, and when it acts again', () => {
    const run = context();
    warnAboutKey(run.ctx, KEY, {
      state: 'stopped',
      id: 'key_2',
      tenant: 'acme',
      reason: 'issuer role ended',
    });
    expect(run.stderr()).toBe(
      `warning: the API key key_2 is stopped, not revoked: the platform refuses it now (issuer role ended), and it acts again once its issuer holds its role without an end date; svc only forgot it; revoke it ${BY}: \`svc tenants api-keys revoke acme key_2\`\n`,
    );
  });
  it('svc could not ask: how to find its id, on the platform it was for', () => {
    const run = context({ SVC_TENANT: 'acme' });
    warnAboutKey(run.ctx, KEY, undefined, 'the API key', 'https://other.example');
    expect(run.stderr()).toBe(
      `warning: the API key may still be valid: svc only forgot it; ${BY}, find its id by its prefix svc_pk_012… in \`svc --base-url https://other.example tenants api-keys ls acme\`, then revoke it with \`svc --base-url https://other.example tenants api-keys revoke acme KEY_ID\`\n`,
    );
  });

  it('svc could not ask and no tenant is known: a TENANT placeholder to fill in', () => {
    const run = context();
    warnAboutKey(run.ctx, KEY, undefined, 'the API key');
    expect(run.stderr()).toBe(
      `warning: the API key may still be valid: svc only forgot it; ${BY}, find its id by its prefix svc_pk_012… in \`svc tenants api-keys ls TENANT\`, then revoke it with \`svc tenants api-keys revoke TENANT KEY_ID\`\n`,
    );
  });

  const session = (over: Partial<SessionEnd>): SessionEnd => ({
    removed: true,
    revocation: { outcome: 'revoked', endpoint: 'https://idp.example/revoke' },
    credential: 'oauth',
    token: undefined,
    ...over,
  });
  it.each([
    ['a revoked session: nothing', session({}), ''],
    [
      'a server without revocation',
      session({ revocation: { outcome: 'unsupported', server: 'https://idp.example' } }),
      'warning: https://idp.example does not offer token revocation (RFC 7009): the refresh token stays valid until it expires\n',
    ],
    [
      '--no-revoke',
      session({ revocation: { outcome: 'skipped' } }),
      'warning: the session was not revoked (--no-revoke): its refresh token stays valid until it expires\n',
    ],
    [
      'a removed JWT',
      session({ revocation: { outcome: 'not_applicable' }, credential: 'token', token: JWT }),
      'warning: the token itself stays valid until it expires: svc only forgot it\n',
    ],
    [
      'a removed API key',
      session({
        revocation: { outcome: 'not_applicable' },
        credential: 'token',
        token: KEY,
        key: { state: 'rejected' },
      }),
      'the platform no longer accepts the API key (it was revoked, or is unknown there): nothing is left to revoke\n',
    ],
    [
      'a token not removed',
      session({ revocation: { outcome: 'not_applicable' }, removed: false, credential: 'token', token: JWT }),
      '',
    ],
  ])('%s', (_, end, expected) => {
    const run = context();
    warnAboutSession(run.ctx, end);
    expect(run.stderr()).toBe(expected);
  });
});

describe('endReplacedSession: a login that replaced a stored token or key', () => {
  it('nothing replaced, or an OAuth session with no token endpoint: nothing to say', async () => {
    const run = context();
    expect(await endReplacedSession(run.ctx, 'default', undefined)).toBeNull();
    expect(
      await endReplacedSession(run.ctx, 'default', {
        type: 'oauth',
        access_token: 'a',
        obtained_at: '2026-01-15T12:00:00.000Z',
      }),
    ).toBeNull();
    expect(run.stderr()).toBe('');
  });

  it('the same token stored again: nothing forgotten, nothing said', async () => {
    const run = context();
    expect(
      await endReplacedSession(
        run.ctx,
        'default',
        { type: 'token', access_token: JWT, obtained_at: '2026-01-15T12:00:00.000Z' },
        JWT,
      ),
    ).toBeNull();
    expect(run.stderr()).toBe('');
  });

  it('a replaced JWT: it stays valid, svc only forgot it', async () => {
    const run = context();
    expect(
      await endReplacedSession(
        run.ctx,
        'default',
        { type: 'token', access_token: JWT, obtained_at: '2026-01-15T12:00:00.000Z' },
        KEY,
      ),
    ).toEqual({
      outcome: 'forgotten',
      kind: 'token',
    });
    expect(run.stderr()).toBe(
      'warning: the replaced token stays valid until it expires: svc only forgot it\n',
    );
  });

  it('a replaced key of this platform is asked about there (here: no answer) and its commands keep to it', async () => {
    const run = context({ SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TENANT: 'acme' });
    const replaced = {
      type: 'token',
      access_token: KEY,
      origin: 'http://127.0.0.1:9',
      obtained_at: '2026-01-15T12:00:00.000Z',
    } as const;
    expect(await endReplacedSession(run.ctx, 'default', replaced, JWT)).toEqual({
      outcome: 'forgotten',
      kind: 'api_key',
    });
    expect(run.stderr()).toContain(
      'warning: the replaced API key may still be valid: svc only forgot it; with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix svc_pk_012… in `svc tenants api-keys ls acme`',
    );
  });

  it('a replaced key of another platform is never sent there: the lines name that platform', async () => {
    const run = context({ SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TENANT: 'acme' });
    const replaced = {
      type: 'token',
      access_token: KEY,
      origin: 'https://other.example',
      obtained_at: '2026-01-15T12:00:00.000Z',
    } as const;
    expect(await endReplacedSession(run.ctx, 'default', replaced, JWT)).toEqual({
      outcome: 'forgotten',
      kind: 'api_key',
    });
    expect(run.stderr()).toContain('`svc --base-url https://other.example tenants api-keys ls acme`');
  });
});

describe('endReplacedSession: what the server answered to revoking a replaced OAuth session', () => {
  // No metadata (404): svc revokes at the guessed path, which answers with `status`.
  // GET /v1/me (a replaced API key asked about) is refused: the key is revoked or unknown there.
  // `pressAt`: Ctrl-C pressed once the revocation has reached the server (answered after it).
  let status = 200;
  let pressAt: (() => void) | undefined;
  const asked: string[] = [];
  let server: Server;
  let origin = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      asked.push(`${req.method} ${req.url}`);
      const revoke = req.method === 'POST' && req.url?.endsWith('/revoke');
      const code = revoke ? status : req.url === '/v1/me' ? 401 : 404;
      if (revoke && pressAt) {
        pressAt();
        pressAt = undefined;
      }
      setImmediate(() => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(code === 200 ? {} : { error: 'invalid_request', error_description: `no (${code})` }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const replaced = () =>
    ({
      type: 'oauth',
      access_token: 'old-access',
      refresh_token: 'old-refresh',
      client_id: 'svc-cli',
      token_url: `${origin}/v1/oauth/token`,
      origin,
      obtained_at: '2026-01-15T12:00:00.000Z',
    }) as const;
  const run = () => context({ SVC_BASE_URL: origin, SVC_MAX_RETRIES: '0' });
  const what = 'the previous session of profile "default"';

  it('revoked: one line, and no profile kept', async () => {
    status = 200;
    const r = run();
    expect(await endReplacedSession(r.ctx, 'default', replaced())).toEqual({ outcome: 'revoked' });
    expect(r.stderr()).toBe(`revoked ${what} at ${origin}\n`);
  });

  it('refused (a 4xx): said as it is, nothing kept', async () => {
    status = 400;
    const r = run();
    expect(await endReplacedSession(r.ctx, 'default', replaced())).toEqual({ outcome: 'refused' });
    expect(r.stderr()).toMatch(
      new RegExp(
        `^warning: the server refused to revoke ${what} \\(.*no \\(400\\).*\\): it may stay valid until it expires; ask the server’s administrator to end it if it must end now\n$`,
      ),
    );
    expect(r.ctx.store().hasProfile('default-previous')).toBe(false);
  });

  it('no revocation at the guessed path (404): unsupported, the session stays valid', async () => {
    status = 404;
    const r = run();
    expect(await endReplacedSession(r.ctx, 'default', replaced())).toEqual({ outcome: 'unsupported' });
    expect(r.stderr()).toBe(
      `warning: ${origin} does not offer token revocation (RFC 7009): ${what} stays valid until its refresh token expires\n`,
    );
  });

  it('no answer (a 503): kept in the first free NAME-previous profile, with the command that ends it', async () => {
    status = 503;
    const r = run();
    await r.ctx.store().setProfileValues('default-previous', { base_url: origin });
    expect(await endReplacedSession(r.ctx, 'default', replaced())).toEqual({
      outcome: 'kept',
      profile: 'default-previous-2',
    });
    expect(r.stderr()).toMatch(
      new RegExp(
        `^warning: ${what} could not be revoked at ${origin} \\(.*\\), so it is still valid: svc keeps it in profile "default-previous-2"; end it with \`svc profiles rm default-previous-2\`\n$`,
      ),
    );
    expect(r.ctx.store().credential('default-previous-2')).toMatchObject({ refresh_token: 'old-refresh' });
  });

  it('Ctrl-C before the revocation was sent: kept, and said to be still valid', async () => {
    status = 200;
    const stop = new AbortController();
    stop.abort();
    const r = testContext({
      env: { ...dirs(), SVC_BASE_URL: origin, SVC_MAX_RETRIES: '0' },
      signal: stop.signal,
    });
    expect(await endReplacedSession(r.ctx, 'default', replaced())).toEqual({
      outcome: 'kept',
      profile: 'default-previous',
    });
    expect(r.stderr()).toBe(
      `warning: ${what} was not revoked: svc was interrupted before the revocation was sent to ${origin}, so it is still valid: svc keeps it in profile "default-previous"; end it with \`svc profiles rm default-previous\`\n`,
    );
  });

  it('no answer, and a disk too full to keep it: not kept, and said to stay valid', async () => {
    status = 503;
    const { disk, full } = fillableDisk();
    const r = testContext({ env: { ...dirs(), SVC_BASE_URL: origin, SVC_MAX_RETRIES: '0' }, disk });
    full.write = true;
    expect(await endReplacedSession(r.ctx, 'default', replaced())).toEqual({ outcome: 'unreachable' });
    expect(r.stderr()).toMatch(
      new RegExp(
        `^warning: ${what} could not be revoked at ${origin} \\(.*\\), so it is still valid, and svc could not keep it: it stays valid until it expires\n$`,
      ),
    );
  });

  it('no answer, and every NAME-previous[-N] up to 99 taken: not kept, and said to stay valid', async () => {
    status = 503;
    const r = run();
    for (let n = 1; n < 100; n++)
      await r.ctx.store().setProfileValues(`default-previous${n === 1 ? '' : `-${n}`}`, { base_url: origin });
    expect(await endReplacedSession(r.ctx, 'default', replaced())).toEqual({ outcome: 'unreachable' });
    expect(r.stderr()).toMatch(
      new RegExp(
        `^warning: ${what} could not be revoked at ${origin} \\(.*\\), so it is still valid, and svc could not keep it: it stays valid until it expires\n$`,
      ),
    );
    expect(r.ctx.store().hasProfile('default-previous-100')).toBe(false);
    // Nowhere else either: the session is in no profile at all.
    const path = r.ctx.store().credentialsPath;
    expect(existsSync(path) ? readFileSync(path, 'utf8') : '').not.toContain('old-refresh');
  });

  it('Ctrl-C after the revocation was sent, and a disk too full to keep it: it may stay valid', async () => {
    status = 200;
    const stop = new AbortController();
    pressAt = () => stop.abort();
    const { disk, full } = fillableDisk();
    const r = testContext({
      env: { ...dirs(), SVC_BASE_URL: origin, SVC_MAX_RETRIES: '0' },
      signal: stop.signal,
      disk,
    });
    full.write = true;
    expect(await endReplacedSession(r.ctx, 'default', replaced())).toEqual({ outcome: 'unreachable' });
    expect(r.stderr()).toBe(
      `warning: ${what} was being revoked at ${origin} when svc was interrupted, after the revocation was sent, so it may still be valid, and svc could not keep it: it may stay valid until it expires\n`,
    );
  });

  describe('a replaced API key is asked about on the platform it was stored for (here: refused for good)', () => {
    const key = (keyOrigin?: string) =>
      ({
        type: 'token',
        access_token: KEY,
        ...(keyOrigin === undefined ? {} : { origin: keyOrigin }),
        obtained_at: '2026-01-15T12:00:00.000Z',
      }) as const;
    const refused =
      'the platform no longer accepts the replaced API key (it was revoked, or is unknown there): nothing is left to revoke\n';

    it('stored for this run’s platform: asked there', async () => {
      const r = run();
      asked.length = 0;
      expect(await endReplacedSession(r.ctx, 'default', key(origin), JWT)).toEqual({
        outcome: 'forgotten',
        kind: 'api_key',
      });
      expect(asked).toEqual(['GET /v1/me']);
      expect(r.stderr()).toBe(refused);
    });

    // review23c H1: the run's platform is the login's, no witness of where an older key was used
    // (the login binds it to its profile's base_url first: credentialBeingReplaced).
    it('an older credential that names no platform: asked nowhere, and said so', async () => {
      const r = run();
      asked.length = 0;
      expect(await endReplacedSession(r.ctx, 'default', key(), JWT)).toEqual({
        outcome: 'forgotten',
        kind: 'api_key',
      });
      expect(asked).toEqual([]);
      expect(r.stderr()).toContain(
        'warning: the replaced API key may still be valid: svc did not ask about it: it was stored before svc recorded origins, in a profile with no base_url, so svc does not know its server and sends it to none;',
      );
      expect(r.stderr()).toContain(
        '`svc --base-url URL tenants api-keys ls TENANT` (URL: the server it was used with)',
      );
    });

    it('stored for another platform: not asked, and the lines name that one', async () => {
      const r = run();
      asked.length = 0;
      await endReplacedSession(r.ctx, 'default', key('http://127.0.0.1:9'), JWT);
      expect(asked).toEqual([]);
      expect(r.stderr()).toContain('`svc --base-url http://127.0.0.1:9 tenants api-keys ls TENANT`');
    });

    it('no platform for this run (no base URL anywhere): not asked, and the lines name the key’s', async () => {
      const r = context();
      asked.length = 0;
      expect(await endReplacedSession(r.ctx, 'default', key(origin), JWT)).toEqual({
        outcome: 'forgotten',
        kind: 'api_key',
      });
      expect(asked).toEqual([]);
      expect(r.stderr()).toContain(`\`svc --base-url ${origin} tenants api-keys ls TENANT\``);
    });
  });
});
