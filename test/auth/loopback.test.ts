import { describe, expect, it } from 'vitest';
import { startLoopback } from '../../src/auth/loopback.js';
import { AuthError, InterruptedError } from '../../src/errors.js';
import { connectionRefused } from '../helpers/oauth.js';

const STATE = 's'.repeat(43);
const ISSUER = 'http://127.0.0.1:4010';

async function receiver(options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  return startLoopback({
    state: STATE,
    issuers: [ISSUER, `${ISSUER}/`],
    timeoutMs: options.timeoutMs ?? 10_000,
    signal: options.signal ?? new AbortController().signal,
  });
}

function get(url: string): Promise<{ status: number; text: string; headers: Headers } | 'refused'> {
  return fetch(url).then(
    async (r) => ({ status: r.status, text: await r.text(), headers: r.headers }),
    () => 'refused' as const,
  );
}

describe('the loopback redirect receiver', () => {
  it('listens on 127.0.0.1 at an ephemeral port with path /callback', async () => {
    const r = await receiver();
    expect(r.redirectUri).toBe(`http://127.0.0.1:${r.port}/callback`);
    expect(r.port).toBeGreaterThan(1024);
    await r.close();
    expect(await connectionRefused(r.port)).toBe(true);
  });

  it('accepts the right callback once, answers with a self-contained page, and closes its port', async () => {
    const r = await receiver();
    const held = get(`${r.redirectUri}?code=abc&state=${STATE}&iss=${encodeURIComponent(ISSUER)}`);
    expect(await r.code()).toBe('abc');
    // Answered once the caller says how the login ended.
    await r.close({
      ok: true,
      title: 'Logged in',
      text: 'You can close this tab and return to your terminal.',
    });
    const answer = await held;
    expect(answer).not.toBe('refused');
    if (answer === 'refused') return;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(answer.text).toContain('return to your terminal');
    expect(answer.text).not.toMatch(/<(script|img|link|iframe)\b|src=|href=|url\(/i);
    expect(answer.text).not.toContain('abc');
    expect(await connectionRefused(r.port)).toBe(true);
  });

  it('answers other paths 404 without ending the wait', async () => {
    const r = await receiver();
    for (const path of ['/', '/favicon.ico', '/callback/x', '/callbackx?code=a&state=' + STATE]) {
      const answer = await get(`http://127.0.0.1:${r.port}${path}`);
      expect(answer !== 'refused' && answer.status).toBe(404);
    }
    const post = await fetch(r.redirectUri, { method: 'POST' });
    expect(post.status).toBe(404);
    const held = get(`${r.redirectUri}?code=late&state=${STATE}`);
    expect(await r.code()).toBe('late');
    await r.close();
    await held;
  });

  it('turns away a missing, empty, wrong or repeated state with a 400 page, and keeps waiting', async () => {
    const strays: string[] = [];
    const r = await startLoopback({
      state: STATE,
      issuers: [ISSUER],
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      onStray: (reason) => strays.push(reason),
    });
    for (const query of [
      'code=abc',
      'code=abc&state=',
      'code=evil&state=guess',
      `code=abc&state=${STATE}&state=${STATE}`,
      'error=access_denied&state=guess',
    ]) {
      const answer = await get(`${r.redirectUri}?${query}`);
      expect(answer !== 'refused' && answer.status, query).toBe(400);
      expect(answer !== 'refused' && answer.text).toContain('does not belong to the login');
    }
    // The first is said; the rest are counted when the port closes (a flood must not scroll the URL away).
    expect(strays).toEqual([
      'a request to the login callback without a state was turned away; still waiting',
    ]);
    const held = get(`${r.redirectUri}?code=real&state=${STATE}`);
    expect(await r.code()).toBe('real');
    await r.close();
    await held;
    expect(strays).toEqual([
      'a request to the login callback without a state was turned away; still waiting',
      '4 more requests to the login callback were turned away (a missing or wrong state)',
    ]);
  });

  it.each([
    [
      'a foreign issuer',
      `code=abc&state=${STATE}&iss=https%3A%2F%2Fevil.example`,
      'issuer_mismatch',
      /issuer/,
    ],
    ['no code', `state=${STATE}`, 'code_missing', /neither a code nor an error/],
    [
      'an error',
      `error=access_denied&error_description=the+user+said+no&state=${STATE}`,
      'authorization_denied',
      /^authorization was denied: access_denied \(the user said no\)$/,
    ],
    [
      'another error',
      `error=invalid_scope&state=${STATE}`,
      'authorization_error',
      /^authorization failed: invalid_scope$/,
    ],
  ])('ends the wait on %s, with a clear error, and closes its port', async (_name, query, code, message) => {
    const r = await receiver();
    const answer = await get(`${r.redirectUri}?${query}`);
    expect(answer !== 'refused' && answer.status).toBe(400);
    const error = await r.code().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe(code);
    expect((error as AuthError).message).toMatch(message);
    expect(await connectionRefused(r.port)).toBe(true);
  });

  it('takes exactly one callback: replays are turned away', async () => {
    const r = await receiver();
    const url = `${r.redirectUri}?code=abc&state=${STATE}`;
    const held = Promise.all([get(url), get(url), get(url)]);
    expect(await r.code()).toBe('abc');
    await r.close({ ok: true, title: 'Logged in', text: 'done' });
    const answers = await held;
    const statuses = answers.map((a) => (a === 'refused' ? 'refused' : a.status));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 400 || s === 'refused')).toBe(true);
    expect(await get(url)).toBe('refused');
  });

  it('times out, and closes its port', async () => {
    const r = await receiver({ timeoutMs: 200 });
    const error = await r.code().catch((e: unknown) => e);
    expect((error as AuthError).code).toBe('login_timeout');
    expect((error as AuthError).message).toBe(
      'timed out after 0.2 s waiting for the browser to finish the login',
    );
    expect(await connectionRefused(r.port)).toBe(true);
  });

  it('stops on Ctrl-C (the abort signal), and closes its port', async () => {
    const controller = new AbortController();
    const r = await receiver({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await r.code().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(await connectionRefused(r.port)).toBe(true);
  });
});
