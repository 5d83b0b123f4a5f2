/**
 * `svc login --device` (RFC 8628) in-process against a small device-authorization server whose
 * answers each test scripts, on a virtual clock that records every wait between polls: the
 * server's interval (5 s when it gives none), 5 s more after each slow_down, the code's expiry,
 * denial, Ctrl-C, and answers that lack what a device login needs. The same login with a real
 * Chromium typing the code against the sandbox: test/e2e/login-device.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/system/clock.js';
import { runInProcess, startInProcess, useTempDirs, virtualClock } from '../../helpers/context.js';
import { oauthJson } from '../../helpers/oauth.js';

/** What the server answers: the device authorization, then one answer per poll ('ok' issues tokens). */
interface Script {
  codes: Record<string, unknown>;
  /** The device endpoint's status (200 unless a test refuses the request). */
  status?: number;
  polls: string[];
}

let server: Server;
let origin: string;
let script: Script;
/** The forms the token endpoint and the device endpoint received, in order. */
let forms: Array<Record<string, string>>;

const CODES = {
  device_code: 'device-code-0123456789abcdef',
  user_code: 'WDJB-MJHT',
  verification_uri: '',
  expires_in: 600,
  interval: 3,
};

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (request.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return oauthJson(response, 200, {
        issuer: `${origin}/`,
        token_endpoint: `${origin}/v1/oauth/token`,
        device_authorization_endpoint: `${origin}/device`,
      });
    }
    if (request.method === 'GET' && url.pathname === '/v1/me') {
      return oauthJson(response, 200, {
        id: 'u1',
        type: 'user',
        name: 'Dee Vice',
        tenant_id: null,
        tenants: [],
      });
    }
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      if (request.method === 'POST' && url.pathname === '/device') {
        forms.push(form);
        return oauthJson(response, script.status ?? 200, script.codes);
      }
      if (request.method === 'POST' && url.pathname === '/v1/oauth/token') {
        forms.push(form);
        const answer = script.polls.shift() ?? 'authorization_pending';
        if (answer !== 'ok') return oauthJson(response, 400, { error: answer });
        return oauthJson(response, 200, {
          access_token: 'device-access-token-0123456789',
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: 'device-refresh-token-0123456789',
          scope: 'profile',
        });
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  forms = [];
  script = { codes: { ...CODES, verification_uri: `${origin}/activate` }, polls: [] };
});

const dirs = useTempDirs();
const env = () => ({ ...dirs(), SVC_BASE_URL: origin, SVC_CLIENT_ID: 'device-client' });

/** `svc login --device ARGS` on a virtual clock; its result and the waits between polls. */
async function deviceLogin(args: string[] = []) {
  const clock = virtualClock(Date.parse('2026-11-24T09:00:00Z'));
  const result = await runInProcess(['login', '--device', ...args], env(), { clock });
  return { ...result, waits: clock.waits, polls: forms.filter((f) => f.grant_type !== undefined) };
}

function instructions(expiry: string): string {
  return (
    'To log in, open this page in a browser on any device (your laptop, your phone):\n' +
    `  ${origin}/activate\nand enter the code  WDJB-MJHT\n` +
    `Waiting for approval (the code expires in ${expiry}; Ctrl-C to cancel)…\n`
  );
}

describe('svc login --device: polling', () => {
  it("polls at the server's interval, 5 s more after each slow_down, until the login is approved", async () => {
    script.polls = ['authorization_pending', 'slow_down', 'authorization_pending', 'slow_down', 'ok'];
    const r = await deviceLogin();
    expect(r.waits).toEqual([3000, 3000, 8000, 8000, 13000]);
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toBe(
      `${instructions('10 minutes')}✓ Logged in to ${origin} as Dee Vice (profile "default")\n` +
        '  scopes: profile; the access token expires in 1 hour (refreshed automatically)\n',
    );
    expect(r.polls).toHaveLength(5);
    for (const form of r.polls) {
      expect(form).toEqual({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: CODES.device_code,
        client_id: 'device-client',
      });
    }
    // No --scope: none is asked for, and the server grants the client's default.
    expect(forms[0]).toEqual({ client_id: 'device-client' });
  });

  it.each([
    ['no interval', undefined],
    ['an interval of 0', 0],
    ['an interval that is not a number', 'soon'],
  ])('polls every 5 s when the server gives %s', async (_what, interval) => {
    script.codes = { ...script.codes, interval };
    script.polls = ['authorization_pending', 'ok'];
    const r = await deviceLogin();
    expect(r.code, r.stderr).toBe(0);
    expect(r.waits).toEqual([5000, 5000]);
  });

  it('asks for the scopes given with --scope', async () => {
    script.polls = ['ok'];
    const r = await deviceLogin(['--scope', 'read:tenants', '--scope', 'admin']);
    expect(r.code, r.stderr).toBe(0);
    expect(forms[0]).toEqual({ client_id: 'device-client', scope: 'read:tenants admin' });
  });

  it.each([
    [600, '10 minutes'],
    [120, '2 minutes'],
    [90, '90 s'],
    [60, '60 s'],
  ])('says a code that expires in %i s expires in %s', async (seconds, said) => {
    script.codes = { ...script.codes, expires_in: seconds };
    script.polls = ['ok'];
    const r = await deviceLogin();
    expect(r.stderr.startsWith(instructions(said))).toBe(true);
  });

  it('shows the complete verification address when the server gives one', async () => {
    script.codes = { ...script.codes, verification_uri_complete: `${origin}/activate?user_code=WDJB-MJHT` };
    script.polls = ['ok'];
    const r = await deviceLogin();
    expect(r.stderr).toContain(
      `and enter the code  WDJB-MJHT\n(or open ${origin}/activate?user_code=WDJB-MJHT)\nWaiting for approval`,
    );
  });

  it('takes verification_url where a server names it so (Google, older drafts)', async () => {
    script.codes = { ...script.codes, verification_uri: undefined, verification_url: `${origin}/activate` };
    script.polls = ['ok'];
    const r = await deviceLogin();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.startsWith(instructions('10 minutes'))).toBe(true);
  });
});

describe('svc login --device: how it ends without a login (exit 3, 130)', () => {
  it('stops when the code expires while still pending: the last poll is the one at the deadline', async () => {
    script.codes = { ...script.codes, expires_in: 10, interval: 5 };
    const r = await deviceLogin();
    expect(r.waits).toEqual([5000, 5000]);
    expect(r.polls).toHaveLength(2);
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toBe(
      `${instructions('10 s')}` +
        'error: the code expired before the login was approved; run `svc login --device` again and enter the new code\n',
    );
  });

  it.each([
    [
      'expired_token',
      'error: the code expired before the login was approved; run `svc login --device` again and enter the new code\n',
    ],
    [
      'access_denied',
      'error: authorization was denied: access_denied; run the login again and choose Approve\n',
    ],
  ])('ends on %s from the server', async (answer, message) => {
    script.polls = ['authorization_pending', answer];
    const r = await deviceLogin();
    expect(r.waits).toEqual([3000, 3000]);
    expect([r.code, r.stdout, r.stderr]).toEqual([3, '', `${instructions('10 minutes')}${message}`]);
  });

  it('stops on Ctrl-C while waiting between polls (exit 130), having polled nothing more', async () => {
    let waiting: () => void = () => undefined;
    const asleep = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    // A clock whose waits last until Ctrl-C.
    const clock: Clock = {
      now: () => Date.parse('2026-11-24T09:00:00Z'),
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          waiting();
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    };
    const live = startInProcess(['login', '--device'], env(), { clock });
    await asleep;
    live.interrupt();
    const r = await live.done;
    expect([r.code, r.stdout]).toEqual([130, '']);
    expect(r.stderr).toBe(`${instructions('10 minutes')}error: interrupted; the login was cancelled\n`);
    expect(forms.filter((f) => f.grant_type !== undefined)).toEqual([]);
  });

  it('reports a refused device request with its reason and what to check (exit 3)', async () => {
    script.status = 400;
    script.codes = { error: 'invalid_scope', error_description: 'unknown scope nonsense' };
    const r = await deviceLogin(['--scope', 'nonsense']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      3,
      '',
      'error: the server refused to start a device login: unknown scope nonsense (invalid_scope); check the client id and --scope\n',
    ]);
    expect(r.polls).toEqual([]);
  });

  it.each([
    ['an empty device_code', { device_code: '' }],
    ['no user_code', { user_code: undefined }],
    ['no verification address', { verification_uri: undefined }],
    ['no expiry', { expires_in: undefined }],
    ['an expiry of 0', { expires_in: 0 }],
  ])('refuses a device authorization with %s, before any poll', async (_what, change) => {
    script.codes = { ...script.codes, ...change };
    const r = await deviceLogin();
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      'error: the device authorization answer lacks device_code, user_code, verification_uri or expires_in\n',
    );
    expect(r.waits).toEqual([]);
  });
});
