/**
 * The loopback receiver's answers byte for byte (headers and pages), its cancel and timeout
 * messages, and the JWT claim reader's refusals: what mutation testing found no test pinned in
 * src/auth/loopback.ts and src/auth/jwt.ts.
 */
import { describe, expect, it } from 'vitest';
import { decodeJwtClaims, jwtExpiry } from '../../src/auth/jwt.js';
import { startLoopback } from '../../src/auth/loopback.js';
import { AuthError, InterruptedError, UsageError } from '../../src/errors.js';

const STATE = 's'.repeat(43);
const ISSUER = 'http://127.0.0.1:4010';

function receiver(
  options: {
    timeoutMs?: number;
    signal?: AbortSignal;
    port?: number;
    onStray?: (r: string) => void;
    sleep?: (ms: number) => Promise<void>;
  } = {},
) {
  return startLoopback({
    state: STATE,
    issuers: [ISSUER],
    timeoutMs: options.timeoutMs ?? 10_000,
    signal: options.signal ?? new AbortController().signal,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.onStray ? { onStray: options.onStray } : {}),
  });
}

const page = (title: string, text: string) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc</title>' +
  '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1d2330}</style>' +
  `</head><body><h1>${title}</h1><p>${text}</p></body></html>\n`;

async function get(url: string, method = 'GET') {
  const r = await fetch(url, { method });
  const headers = Object.fromEntries(
    [...r.headers].filter(([name]) => !['date', 'content-length', 'transfer-encoding'].includes(name)),
  );
  return { status: r.status, headers, text: await r.text() };
}

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  connection: 'close',
};

describe('the loopback receiver, exactly', () => {
  it('answers each kind of request with its own page and the same headers', async () => {
    const strays: string[] = [];
    const r = await receiver({ onStray: (reason) => strays.push(reason) });
    expect(await get(`http://127.0.0.1:${r.port}/`)).toEqual({
      status: 404,
      headers: HEADERS,
      text: page('Not found', 'This is the svc login callback; nothing else lives here.'),
    });
    expect(await get(r.redirectUri, 'POST')).toMatchObject({ status: 404 });
    expect(await get(`${r.redirectUri}?code=x&state=wrong`)).toEqual({
      status: 400,
      headers: HEADERS,
      text: page(
        'Not this login',
        'This response does not belong to the login svc is waiting for, so it was ignored. Open only the URL svc printed.',
      ),
    });
    expect(strays).toEqual([
      'a request to the login callback with the wrong state was turned away (possible cross-site request forgery); still waiting',
    ]);
    // The request with the code is held until svc knows how the login ended.
    const held = get(`${r.redirectUri}?code=abc&state=${STATE}`);
    expect(await r.code()).toBe('abc');
    await r.close({ ok: true, title: 'Logged in', text: 'done' });
    expect(await held).toEqual({ status: 200, headers: HEADERS, text: page('Logged in', 'done') });
  });

  it('a login that ends without saying how answers the held request with a failure page', async () => {
    const r = await receiver();
    const held = get(`${r.redirectUri}?code=abc&state=${STATE}`);
    expect(await r.code()).toBe('abc');
    expect(await get(`${r.redirectUri}?code=abc&state=${STATE}`)).toEqual({
      status: 400,
      headers: HEADERS,
      text: page('Already finished', 'This login has already finished. Return to your terminal.'),
    });
    await r.close();
    expect(await held).toEqual({
      status: 400,
      headers: HEADERS,
      text: page('Login failed', 'svc could not finish the login. See your terminal for why and what to do.'),
    });
  });

  it('says why a login failed, and the failure ends the wait', async () => {
    const r = await receiver();
    const answer = await get(`${r.redirectUri}?error=access_denied&state=${STATE}`);
    expect(answer.status).toBe(400);
    expect(answer.headers).toEqual(HEADERS);
    expect(answer.text).toMatch(
      /^<!doctype html>.*<h1>Login failed<\/h1><p>.+ Return to your terminal\.<\/p><\/body><\/html>\n$/s,
    );
    await expect(r.code()).rejects.toBeInstanceOf(AuthError);
  });

  it('escapes what it puts in a page', async () => {
    const r = await receiver();
    const answer = await get(
      `${r.redirectUri}?error=access_denied&error_description=${encodeURIComponent('<b>"x"</b>')}&state=${STATE}`,
    );
    expect(answer.text).not.toContain('<b>');
    await r.code().catch(() => undefined);
  });

  it('a stray request with nobody told of it is turned away all the same, and the wait goes on', async () => {
    const r = await receiver();
    expect(await get(`${r.redirectUri}?code=x&state=wrong`)).toMatchObject({ status: 400 });
    const held = get(`${r.redirectUri}?code=abc&state=${STATE}`);
    expect(await r.code()).toBe('abc');
    await r.close({ ok: true, title: 'Logged in', text: 'done' });
    expect((await held).status).toBe(200);
  });

  it('close() cancels the wait with its own message', async () => {
    const r = await receiver();
    await r.close();
    const error = await r.code().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as Error).message).toBe('the login was cancelled');
  });

  it('a signal already aborted cancels at once', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await receiver({ signal: controller.signal });
    const error = await r.code().catch((e: unknown) => e);
    expect((error as Error).message).toBe('interrupted; the login was cancelled');
  });

  it('a port in use is a usage error naming it', async () => {
    const first = await receiver();
    const error = await receiver({ port: first.port }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      `--port ${first.port}: 127.0.0.1:${first.port} is already in use`,
    );
    expect((error as UsageError).hint).toBe('choose another port, or leave --port out for a free one');
    await first.close();
  });

  it.each([
    [60_000, 'timed out after 1 minute waiting for the browser to finish the login'],
    [300_000, 'timed out after 5 minutes waiting for the browser to finish the login'],
  ])('after %i ms: %s', async (timeoutMs, message) => {
    const waits: number[] = [];
    const r = await receiver({ timeoutMs, sleep: async (ms) => void waits.push(ms) });
    const error = (await r.code().catch((e: unknown) => e)) as AuthError;
    expect([error.code, error.message, error.hint]).toEqual([
      'login_timeout',
      message,
      'run the login again (with --no-browser, open the printed URL yourself)',
    ]);
    expect(waits).toEqual([timeoutMs]);
  });
});

describe('JWT claims, read without verifying', () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    [
      'a JWT',
      `h.${b64({ sub: 'u', exp: 1_800_000_000 })}.s`,
      { sub: 'u', exp: 1_800_000_000 },
      '2027-01-15T08:00:00.000Z',
    ],
    ['two parts', `h.${b64({ exp: 1 })}`, undefined, undefined],
    ['four parts', `h.${b64({ exp: 1 })}.s.x`, undefined, undefined],
    ['an empty payload', 'h..s', undefined, undefined],
    ['a payload that is not JSON', `h.${Buffer.from('{').toString('base64url')}.s`, undefined, undefined],
    ['an array', `h.${b64([1])}.s`, undefined, undefined],
    ['null', `h.${b64(null)}.s`, undefined, undefined],
    ['a string', `h.${b64('x')}.s`, undefined, undefined],
    ['exp as a string', `h.${b64({ exp: '1800000000' })}.s`, { exp: '1800000000' }, undefined],
    [
      'exp not finite',
      `h.${Buffer.from('{"exp":1e400}').toString('base64url')}.s`,
      { exp: Number.POSITIVE_INFINITY },
      undefined,
    ],
  ])('%s', (_, token, claims, expiry) => {
    expect(decodeJwtClaims(token)).toEqual(claims);
    expect(jwtExpiry(token)).toBe(expiry);
  });
});
