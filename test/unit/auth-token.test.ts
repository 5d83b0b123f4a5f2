// Over 300 lines: mostly tables of exact inputs and outputs, one block per function, so a
// module's whole contract reads in one file.
// The token endpoint's answers (src/auth/token-endpoint.ts) and the device login
// (src/auth/device.ts) against a scripted local authorization server: what svc accepts, what it
// stores, and what it says when the server refuses. Exact messages throughout.
import { describe, expect, it } from 'vitest';
import { authorizeWithDevice } from '../../src/auth/device.js';
import {
  credentialFromTokens,
  oauthErrorCode,
  parseTokenResponse,
  requestToken,
  tokenRequestFailed,
  tokenUrl,
} from '../../src/auth/token-endpoint.js';
import { AuthError, exitCodeFor, InterruptedError, SvcError } from '../../src/errors.js';
import type { ApiClient } from '../../src/http/client.js';
import { apiErrorFrom, ConnectionError, OutcomeUnknownError } from '../../src/http/errors.js';
import type { Clock } from '../../src/system/clock.js';
import { testContext, virtualClock } from '../helpers/context.js';
import { answers, useHostileServer } from '../helpers/hostile.js';

const NOW = Date.parse('2026-01-15T12:00:00Z');

describe('parseTokenResponse', () => {
  it.each([
    [null, 'the token endpoint did not answer with a JSON object'],
    [[], 'the token endpoint did not answer with a JSON object'],
    ['tok', 'the token endpoint did not answer with a JSON object'],
    [{ token_type: 'Bearer' }, 'the token endpoint answered without an access_token'],
    [{ access_token: '', token_type: 'Bearer' }, 'the token endpoint answered without an access_token'],
    [{ access_token: 'a' }, 'the token endpoint issued a token of type undefined, not Bearer'],
    [{ access_token: 'a', token_type: 'mac' }, 'the token endpoint issued a token of type "mac", not Bearer'],
  ])('refuses %j', (data, message) => {
    expect(() => parseTokenResponse(data)).toThrow(new SvcError('failure', message));
  });

  it.each([
    [{ expires_in: 3600 }, 3600],
    [{ expires_in: '600' }, 600],
    [{ expires_in: 0 }, undefined],
    [{ expires_in: -5 }, undefined],
    [{ expires_in: 'soon' }, undefined],
    [{ expires_in: 'Infinity' }, undefined],
    [{ expires_in: true }, undefined],
    [{ expires_in: [600] }, undefined],
    [{}, undefined],
  ])('reads expires_in of %j as %j', (extra, seconds) => {
    expect(parseTokenResponse({ access_token: 'a', token_type: 'bearer', ...extra }).expires_in).toBe(
      seconds,
    );
  });

  it('keeps refresh_token and scope when they are strings, and the whole answer', () => {
    const data = { access_token: 'a', token_type: 'BEARER', refresh_token: 'r', scope: 's t', x: 1 };
    expect(parseTokenResponse(data)).toEqual({
      access_token: 'a',
      token_type: 'BEARER',
      expires_in: undefined,
      refresh_token: 'r',
      scope: 's t',
      raw: data,
    });
    expect(parseTokenResponse({ ...data, refresh_token: '', scope: 3 })).toMatchObject({
      refresh_token: undefined,
      scope: undefined,
    });
    expect(parseTokenResponse({ ...data, refresh_token: 5 }).refresh_token).toBeUndefined();
  });
});

describe('requestToken', () => {
  // Not the secrets it registers: the client learns a form's credentials by their field names too
  // (SecretRegistry.learnRequest), so that list changes nothing a user sees (docs/MUTATION.md).
  it('posts the form to the token endpoint without a bearer or tenant; a refresh is svc’s own business', async () => {
    const calls: unknown[] = [];
    const api = {
      request: async (options: unknown) => {
        calls.push(options);
        return { data: { access_token: 'a', token_type: 'bearer' }, headers: {} };
      },
      clockOffsetOf: () => undefined,
    } as unknown as ApiClient;
    const form = { grant_type: 'authorization_code', client_id: 'client-1', code: 'c', code_verifier: 'v' };
    expect((await requestToken(api, 'http://127.0.0.1:9/token', form)).access_token).toBe('a');
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: 'http://127.0.0.1:9/token',
      form,
      auth: false,
      tenant: null,
    });
    expect(calls[0]).not.toHaveProperty('recordChange');
    await requestToken(
      api,
      'http://127.0.0.1:9/token',
      { grant_type: 'refresh_token', refresh_token: 'rt' },
      { ownBusiness: true },
    );
    expect(calls[1]).toMatchObject({ recordChange: false });
  });
});

describe('token request failures', () => {
  const oauth = (status: number, body: unknown) => apiErrorFrom(status, '', {}, JSON.stringify(body));

  it.each([
    [oauth(400, { error: 'invalid_grant' }), 'invalid_grant'],
    [oauth(499, { error: 'x' }), 'x'],
    [oauth(500, { error: 'server_error' }), undefined],
    [oauth(399, { error: 'y' }), undefined],
    [new Error('invalid_grant'), undefined],
  ])('oauthErrorCode(%o) is %j', (error, code) => {
    expect(oauthErrorCode(error)).toBe(code);
  });

  it('a refused request becomes an AuthError (exit 3) without the secrets the server echoed', () => {
    const error = tokenRequestFailed(
      'the refresh failed',
      oauth(400, { error: 'invalid_grant', error_description: 'refresh token rt-secret-123 expired' }),
      ['rt-secret-123'],
      'log in again',
    ) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect([error.message, error.code, error.hint, exitCodeFor(error)]).toEqual([
      'the refresh failed: refresh token [redacted] expired (invalid_grant)',
      'invalid_grant',
      'log in again',
      3,
    ]);
  });

  it("a lost answer (a 5xx) is a plain failure with the caller's hint, not an unknown outcome of a change", () => {
    const lost = new OutcomeUnknownError(
      apiErrorFrom(
        500,
        'Internal Server Error',
        {},
        '{"error":"server_error","error_description":"code c-secret-1 failed"}',
      ),
    );
    const error = tokenRequestFailed(
      'the code could not be exchanged',
      lost,
      ['c-secret-1'],
      'run the login again',
    );
    expect(error).toBeInstanceOf(SvcError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    const e = error as SvcError;
    expect([e.message, e.hint, exitCodeFor(e)]).toEqual([
      'the code could not be exchanged, and whether the platform acted on it is unknown: code [redacted] failed',
      'run the login again',
      1,
    ]);
  });

  it('an answer lost without one (a dropped connection) says the connection failure; Ctrl-C after sending exits 130', () => {
    const dropped = tokenRequestFailed(
      'the session could not be refreshed',
      new OutcomeUnknownError(
        new ConnectionError('the connection closed before an answer (code c-secret-1)'),
      ),
      ['c-secret-1'],
      'run it again',
    ) as SvcError;
    expect([dropped.category, dropped.code, dropped.message]).toEqual([
      'failure',
      'connection_error',
      'the session could not be refreshed, and whether the platform acted on it is unknown: the connection closed before an answer (code [redacted])',
    ]);
    const cut = tokenRequestFailed('x', new OutcomeUnknownError(new InterruptedError()), [], 'h') as SvcError;
    expect([cut.category, exitCodeFor(cut), cut.message]).toEqual([
      'interrupted',
      130,
      'x, and whether the platform acted on it is unknown: interrupted',
    ]);
  });

  it('names no code twice, and has one when the server gave none', () => {
    const same = tokenRequestFailed(
      'x',
      oauth(400, { error: 'invalid_client', error_description: 'invalid_client' }),
      [],
      'h',
    ) as AuthError;
    expect(same.message).toBe('x: invalid_client');
    const none = tokenRequestFailed('x', apiErrorFrom(401, 'Unauthorized', {}, ''), [], 'h') as AuthError;
    expect([none.message, none.code]).toEqual(['x: 401 Unauthorized', 'token_request_failed']);
  });

  it.each([
    [oauth(500, { error: 'server_error' })],
    [oauth(429, { error: 'slow' })],
    [new Error('socket hang up')],
  ])('leaves %o as it is', (error) => {
    expect(tokenRequestFailed('x', error, [], 'h')).toBe(error);
  });
});

describe('credentialFromTokens', () => {
  const tokens = (extra: Record<string, unknown> = {}) =>
    parseTokenResponse({ access_token: 'acc', token_type: 'Bearer', ...extra });

  it('stores what was issued, when, for which client and origin', () => {
    expect(
      credentialFromTokens(
        tokens({ expires_in: 60, refresh_token: 'ref', scope: 'a b' }),
        { clientId: 'cli', clientSecret: 'sec', tokenUrl: 'http://t/token', origin: 'http://o' },
        NOW,
      ),
    ).toEqual({
      type: 'oauth',
      access_token: 'acc',
      refresh_token: 'ref',
      expires_at: '2026-01-15T12:01:00.000Z',
      scope: 'a b',
      client_id: 'cli',
      client_secret: 'sec',
      token_url: 'http://t/token',
      origin: 'http://o',
      // A new login's own session id (a running command keeps the session it started with).
      session: expect.stringMatching(/^ses_[0-9a-f-]{36}$/),
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
  });

  it('keeps the previous refresh token, scope and origin on a refresh that does not rotate them', () => {
    const previous = {
      type: 'oauth' as const,
      access_token: 'old',
      refresh_token: 'ref-old',
      scope: 'old scope',
      origin: 'http://prev',
      session: 'ses_prev',
      obtained_at: 'x',
    };
    expect(
      credentialFromTokens(
        tokens(),
        { clientId: 'cli', clientSecret: undefined, tokenUrl: 'u', previous },
        NOW,
      ),
    ).toEqual({
      type: 'oauth',
      access_token: 'acc',
      refresh_token: 'ref-old',
      scope: 'old scope',
      client_id: 'cli',
      token_url: 'u',
      origin: 'http://prev',
      session: 'ses_prev',
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
    expect(
      credentialFromTokens(
        tokens(),
        { clientId: 'c', clientSecret: '', tokenUrl: 'u', requestedScope: 'asked' },
        NOW,
      ),
    ).toEqual({
      type: 'oauth',
      access_token: 'acc',
      scope: 'asked',
      client_id: 'c',
      token_url: 'u',
      session: expect.stringMatching(/^ses_/),
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
  });

  it('takes the expiry from a JWT access token when the answer has none', () => {
    const payload = Buffer.from(JSON.stringify({ exp: 1_800_000_000 })).toString('base64url');
    const jwt = `eyJhbGciOiJub25lIn0.${payload}.sig`;
    const credential = credentialFromTokens(
      parseTokenResponse({ access_token: jwt, token_type: 'Bearer' }),
      { clientId: 'c', clientSecret: undefined, tokenUrl: 'u' },
      NOW,
    );
    expect(credential.expires_at).toBe('2027-01-15T08:00:00.000Z');
  });

  // review22d F4: the exp is on the issuer's clock; every stored OAuth expiry is this machine's.
  it.each([
    ['3 h ahead of this machine', 3 * 3_600_000, '2027-01-15T05:00:00.000Z'],
    ['3 h behind', -3 * 3_600_000, '2027-01-15T11:00:00.000Z'],
    ['within a minute (in step, as every clock rule of svc has it)', 59_000, '2027-01-15T08:00:00.000Z'],
  ])('moves a JWT exp to this machine’s clock by the token endpoint’s Date: %s', (_, offset, expires) => {
    const payload = Buffer.from(JSON.stringify({ exp: 1_800_000_000 })).toString('base64url');
    const tokens = parseTokenResponse({
      access_token: `eyJhbGciOiJub25lIn0.${payload}.sig`,
      token_type: 'Bearer',
    });
    const credential = credentialFromTokens(
      { ...tokens, issuerClockOffsetMs: offset },
      { clientId: 'c', clientSecret: undefined, tokenUrl: 'u' },
      NOW,
    );
    expect(credential.expires_at).toBe(expires);
  });

  it('an expires_in is counted from receipt on this machine’s clock, whatever the token endpoint’s', () => {
    const tokens = parseTokenResponse({ access_token: 'acc', token_type: 'Bearer', expires_in: 3600 });
    const credential = credentialFromTokens(
      { ...tokens, issuerClockOffsetMs: 3 * 3_600_000 },
      { clientId: 'c', clientSecret: undefined, tokenUrl: 'u' },
      NOW,
    );
    expect(credential.expires_at).toBe('2026-01-15T13:00:00.000Z');
  });

  it('tokenUrl joins the base URL and the token path', () => {
    expect(tokenUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010/v1/oauth/token');
    expect(tokenUrl('https://api.example.com/base/')).toBe('https://api.example.com/base/v1/oauth/token');
  });
});

describe('authorizeWithDevice', () => {
  const server = useHostileServer();

  type Answer = { status: number; body: unknown };
  /** A local authorization server: metadata, device codes, and scripted token answers. */
  async function authServer(options: {
    device?: boolean;
    /** The issuer the metadata names (default: this server). */
    issuer?: string;
    codes?: Record<string, unknown>;
    /** The device endpoint's answer instead of the codes (a refusal). */
    deviceAnswer?: Answer;
    token: Answer[];
  }) {
    const forms: Array<{ path: string; form: Record<string, string> }> = [];
    const s = await server();
    const base = s.url;
    s.answer((req, res, received, hit) => {
      const send = (status: number, value: unknown) => answers.json(status, value)(req, res, received, hit);
      if (received.url === '/.well-known/oauth-authorization-server') {
        return send(200, {
          issuer: options.issuer ?? `${base}/`,
          token_endpoint: `${base}/v1/oauth/token`,
          ...(options.device === false
            ? {}
            : { device_authorization_endpoint: `${base}/v1/oauth/device_authorization` }),
        });
      }
      forms.push({ path: received.url, form: Object.fromEntries(new URLSearchParams(received.body)) });
      if (received.url === '/v1/oauth/device_authorization') {
        if (options.deviceAnswer) return send(options.deviceAnswer.status, options.deviceAnswer.body);
        return send(200, {
          device_code: 'dev-code-0123456789',
          user_code: 'ABCD-EFGH',
          verification_uri: `${base}/oauth/device`,
          expires_in: 600,
          interval: 0.01,
          ...options.codes,
        });
      }
      const next = options.token.shift() ?? { status: 500, body: { error: 'script_ended' } };
      return send(next.status, next.body);
    });
    return { base, forms };
  }

  const pending = { status: 400, body: { error: 'authorization_pending' } };
  const issued = {
    status: 200,
    body: { access_token: 'acc-token-0123', token_type: 'Bearer', expires_in: 60 },
  };

  async function login(
    base: string,
    extra: { clientSecret?: string; scopes?: string[]; clock?: Clock; signal?: AbortSignal } = {},
  ) {
    const t = testContext({
      env: { SVC_BASE_URL: base, NO_COLOR: '1' },
      ...(extra.clock ? { clock: extra.clock } : { now: NOW }),
      ...(extra.signal ? { signal: extra.signal } : {}),
    });
    let error: SvcError | undefined;
    let result: Awaited<ReturnType<typeof authorizeWithDevice>> | undefined;
    try {
      result = await authorizeWithDevice(t.ctx, {
        clientId: 'cli',
        clientSecret: extra.clientSecret,
        scopes: extra.scopes ?? [],
      });
    } catch (e) {
      error = e as SvcError;
    }
    return { t, result, error };
  }

  it('shows the page and the code, polls while pending, and returns the tokens', async () => {
    const { base, forms } = await authServer({
      codes: { verification_uri_complete: 'http://x/complete?c=ABCD', expires_in: 900 },
      token: [pending, pending, issued],
    });
    const { t, result, error } = await login(base, { clientSecret: 'sec-0123456789', scopes: ['a', 'b'] });
    expect(error).toBeUndefined();
    expect(result).toMatchObject({
      tokens: { access_token: 'acc-token-0123', expires_in: 60 },
      tokenUrl: `${base}/v1/oauth/token`,
      requestedScope: 'a b',
    });
    expect(t.stderr()).toBe(
      [
        'to log in, open this page in a browser on any device (your laptop, your phone):',
        `  ${base}/oauth/device`,
        'and enter the code  ABCD-EFGH',
        '(or open http://x/complete?c=ABCD)',
        'waiting for approval (the code expires in 15 minutes; Ctrl-C to cancel)…',
        '',
      ].join('\n'),
    );
    expect(forms[0]).toEqual({
      path: '/v1/oauth/device_authorization',
      form: { client_id: 'cli', client_secret: 'sec-0123456789', scope: 'a b' },
    });
    expect(forms.slice(1)).toHaveLength(3);
    expect(forms[1]).toEqual({
      path: '/v1/oauth/token',
      form: {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: 'dev-code-0123456789',
        client_id: 'cli',
        client_secret: 'sec-0123456789',
      },
    });
  });

  /** The device login on a virtual clock: its result, and the waits between polls. */
  async function timedLogin(options: {
    codes?: Record<string, unknown>;
    token: Answer[];
    scopes?: string[];
  }) {
    const { base, forms } = await authServer({ codes: options.codes, token: options.token });
    const clock = virtualClock(NOW);
    const outcome = await login(base, { clock, ...(options.scopes ? { scopes: options.scopes } : {}) });
    return { ...outcome, forms, waits: clock.waits, polls: forms.slice(1) };
  }
  const slowDown = { status: 400, body: { error: 'slow_down' } };

  it("polls at the server's interval, 5 s more after each slow_down (RFC 8628 §3.5)", async () => {
    const { error, waits, polls } = await timedLogin({
      codes: { interval: 3 },
      token: [pending, slowDown, pending, slowDown, issued],
    });
    expect(error).toBeUndefined();
    expect(waits).toEqual([3000, 3000, 8000, 8000, 13000]);
    expect(polls).toHaveLength(5);
  });

  it.each([
    ['no interval', undefined],
    ['an interval of 0', 0],
    ['an interval that is not a number', 'soon'],
  ])('polls every 5 s when the server gives %s; no --scope asks for none', async (_what, interval) => {
    const { error, waits, forms } = await timedLogin({ codes: { interval }, token: [pending, issued] });
    expect(error).toBeUndefined();
    expect(waits).toEqual([5000, 5000]);
    expect(forms[0]).toEqual({ path: '/v1/oauth/device_authorization', form: { client_id: 'cli' } });
  });

  it('a pending answer at the deadline is an expired code: the last poll is the one at the deadline (exit 3)', async () => {
    const { error, waits, polls } = await timedLogin({
      codes: { expires_in: 10, interval: 5 },
      token: [pending, pending, pending],
    });
    expect(waits).toEqual([5000, 5000]);
    expect(polls).toHaveLength(2);
    expect(error).toBeInstanceOf(AuthError);
    expect({ message: error!.message, code: error!.code, exit: exitCodeFor(error) }).toEqual({
      message: 'the code expired before the login was approved',
      code: 'expired_token',
      exit: 3,
    });
  });

  it('stops on Ctrl-C while waiting between polls (exit 130), having polled nothing', async () => {
    const { base, forms } = await authServer({ token: [] });
    const interrupt = new AbortController();
    // A clock whose waits last until Ctrl-C, which comes during the first one.
    const clock: Clock = {
      now: () => NOW,
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          interrupt.abort();
        }),
    };
    const { error } = await login(base, { clock, signal: interrupt.signal });
    expect(error).toBeInstanceOf(InterruptedError);
    expect([error!.message, exitCodeFor(error)]).toEqual(['interrupted; the login was cancelled', 130]);
    expect(forms.slice(1)).toEqual([]);
  });

  it('reports a refused device request with its reason and what to check (exit 3)', async () => {
    const { base, forms } = await authServer({
      deviceAnswer: {
        status: 400,
        body: { error: 'invalid_scope', error_description: 'unknown scope nonsense' },
      },
      token: [],
    });
    const { error } = await login(base, { scopes: ['nonsense'] });
    expect({ message: error!.message, hint: error!.hint, exit: exitCodeFor(error) }).toEqual({
      message: 'the server refused to start a device login: unknown scope nonsense (invalid_scope)',
      hint: 'check the client id and --scope',
      exit: 3,
    });
    expect(forms).toHaveLength(1);
  });

  it.each([
    [{ expires_in: 600 }, 'the code expires in 10 minutes'],
    [{ expires_in: 60 }, 'the code expires in 60 s'],
    [{ expires_in: 90 }, 'the code expires in 90 s'],
    [{ expires_in: 150 }, 'the code expires in 150 s'],
    [{ expires_in: 120 }, 'the code expires in 2 minutes'],
  ])('says how long %j lasts', async (codes, words) => {
    const { base } = await authServer({ codes, token: [issued] });
    const { t, error } = await login(base);
    expect(error).toBeUndefined();
    expect(t.stderr()).toContain(`waiting for approval (${words}; Ctrl-C to cancel)…`);
    expect(t.stderr()).not.toContain('(or open');
  });

  it.each([
    [
      'a denial',
      { status: 400, body: { error: 'access_denied' } },
      {
        message: 'authorization was denied: access_denied',
        code: 'authorization_denied',
        hint: 'run the login again and choose Approve',
        serverCode: 'access_denied',
      },
    ],
    [
      'an expired code',
      { status: 400, body: { error: 'expired_token' } },
      {
        message: 'the code expired before the login was approved',
        code: 'expired_token',
        hint: 'run `svc login --device` again and enter the new code',
      },
    ],
    [
      'another refusal',
      {
        status: 400,
        body: { error: 'invalid_client', error_description: 'unknown client dev-code-0123456789' },
      },
      {
        message: 'the device login failed: unknown client [redacted] (invalid_client)',
        code: 'invalid_client',
        hint: 'run the login again',
      },
    ],
  ])('ends on %s', async (_name, answer, expected) => {
    const { base } = await authServer({ token: [pending, answer] });
    const { error } = await login(base);
    expect(error).toBeInstanceOf(AuthError);
    // A denial reads as a redirect's (authorization_denied, the server's word beside it).
    const { serverCode } = error as { serverCode?: string };
    expect({
      message: error!.message,
      code: error!.code,
      hint: error!.hint,
      ...(serverCode === undefined ? {} : { serverCode }),
    }).toEqual(expected);
  });

  it('refuses a server without device authorization, saying what to use instead', async () => {
    const { base } = await authServer({ device: false, token: [] });
    const { error } = await login(base);
    expect(error).toMatchObject({
      message: `${base} does not offer device authorization (RFC 8628)`,
      hint: 'use `svc login --no-browser`: open the URL it prints on any machine, then paste the address the browser ends on',
    });
  });

  // conform16 #2: metadata naming another issuer (svc's base URL a proxy of the platform) was
  // "does not offer device authorization", sending the user to --no-browser.
  it('says metadata naming another issuer is not used, and names that issuer', async () => {
    const { base, forms } = await authServer({ issuer: 'http://127.0.0.1:43865', token: [] });
    const { error } = await login(base);
    expect(error).toBeInstanceOf(AuthError);
    expect({
      message: error!.message,
      code: error!.code,
      hint: error!.hint,
      exit: exitCodeFor(error),
    }).toEqual({
      message: `the authorization server metadata at ${base}/.well-known/oauth-authorization-server names issuer "http://127.0.0.1:43865", not ${base}/, so svc does not use it (RFC 8414 §3.3)`,
      code: 'issuer_mismatch',
      hint: 'if http://127.0.0.1:43865 is the platform, log in with --base-url http://127.0.0.1:43865; a proxy or another name of the server cannot carry the login',
      exit: 3,
    });
    expect(forms).toHaveLength(0);
  });

  it.each([
    [{ device_code: '' }],
    [{ device_code: 5 }],
    [{ user_code: undefined }],
    [{ verification_uri: undefined }],
    [{ expires_in: undefined }],
    [{ expires_in: 0 }],
    [{ expires_in: 'never' }],
  ])('refuses device codes without a part: %j', async (codes) => {
    const { base, forms } = await authServer({ codes, token: [] });
    const { error } = await login(base);
    expect(error?.message).toBe(
      'the device authorization answer lacks device_code, user_code, verification_uri or expires_in',
    );
    expect(exitCodeFor(error)).toBe(1);
    expect(forms).toHaveLength(1);
  });

  it('takes verification_url for an empty verification_uri too', async () => {
    const { base } = await authServer({
      codes: { verification_uri: '', verification_url: 'http://other/device' },
      token: [issued],
    });
    const { t, error } = await login(base);
    expect(error).toBeUndefined();
    expect(t.stderr()).toContain('\n  http://other/device\n');
  });

  it('names the other issuer as a --base-url without its final slash', async () => {
    const { base } = await authServer({ issuer: 'http://127.0.0.1:43865/', token: [] });
    const { error } = await login(base);
    expect(error?.hint).toBe(
      'if http://127.0.0.1:43865/ is the platform, log in with --base-url http://127.0.0.1:43865; a proxy or another name of the server cannot carry the login',
    );
  });

  it('takes verification_url for verification_uri', async () => {
    const { base } = await authServer({
      codes: { verification_uri: undefined, verification_url: 'http://other/device' },
      token: [issued],
    });
    const { t, error } = await login(base);
    expect(error).toBeUndefined();
    expect(t.stderr()).toContain('\n  http://other/device\n');
  });
});
