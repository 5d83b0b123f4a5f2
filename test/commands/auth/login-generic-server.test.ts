import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { consentBrowser } from '../../helpers/oauth.js';
import { useTempDir } from '../../helpers/temp.js';

/**
 * svc's login against a small standards-conforming OAuth 2.0 server that is not the sandbox:
 * it serves the reference's two paths under other prefixes, redirects at once (no consent
 * page) with an `iss` that is its origin, wants client_secret_post only, issues opaque tokens
 * of type "bearer", sends expires_in as a string and extra fields, and does not rotate refresh
 * tokens. In-process (was test/e2e/oauth-generic-server.test.ts): the "browser" follows the
 * authorization redirect to svc's loopback, as a browser does.
 */
const CLIENT_ID = 'generic-client';
const SECRET = 'generic-secret-0123456789abcdef';
const REFRESH = 'rt-generic-0123456789abcdef';

let server: Server;
let origin: string;
const codes = new Map<string, { challenge: string; redirectUri: string; echo: boolean }>();
const valid = new Set<string>();
const tokenForms: Array<Record<string, string>> = [];
let issued = 0;

function json(response: import('node:http').ServerResponse, status: number, body: unknown): void {
  response
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (request.method === 'GET' && url.pathname === '/app/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== CLIENT_ID || q.get('code_challenge_method') !== 'S256') {
        response.writeHead(400).end('bad request');
        return;
      }
      const code = `code-${codes.size + 1}-0123456789`;
      codes.set(code, {
        challenge: q.get('code_challenge')!,
        redirectUri: q.get('redirect_uri')!,
        // A careless server: for the scope "echo", its refusal repeats what it was sent.
        echo: q.get('scope') === 'echo',
      });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      back.searchParams.set('iss', origin);
      response.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (request.method === 'POST' && url.pathname === '/api/v1/oauth/token') {
      let body = '';
      request.on('data', (d) => {
        body += d;
      });
      request.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        tokenForms.push(form);
        if (
          request.headers.authorization ||
          !request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')
        )
          return json(response, 400, { error: 'invalid_request' });
        if (form.client_id !== CLIENT_ID || form.client_secret !== SECRET)
          return json(response, 401, { error: 'invalid_client' });
        if (form.grant_type === 'authorization_code') {
          const entry = codes.get(form.code ?? '');
          codes.delete(form.code ?? '');
          if (entry?.echo)
            return json(response, 400, {
              error: 'invalid_grant',
              error_description: `code ${form.code} with verifier ${form.code_verifier} and secret ${form.client_secret} refused`,
            });
          const s256 = createHash('sha256')
            .update(form.code_verifier ?? '')
            .digest('base64url');
          if (!entry || entry.redirectUri !== form.redirect_uri || entry.challenge !== s256)
            return json(response, 400, { error: 'invalid_grant' });
        } else if (form.grant_type !== 'refresh_token' || form.refresh_token !== REFRESH) {
          return json(response, 400, { error: 'invalid_grant' });
        }
        const access = `opaque-access-${++issued}-0123456789`;
        valid.add(access);
        return json(response, 200, {
          access_token: access,
          token_type: 'bearer',
          expires_in: '120',
          scope: 'profile',
          id_token: 'not-a-real-id-token',
          extra: { nested: true },
          // Refresh tokens do not rotate: only the code exchange returns one.
          ...(form.grant_type === 'authorization_code' ? { refresh_token: REFRESH } : {}),
        });
      });
      return;
    }
    if (request.method === 'GET' && url.pathname === '/api/v1/me') {
      const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (!token || !valid.has(token)) return json(response, 401, { error: 'invalid_token' });
      return json(response, 200, {
        id: 'u1',
        type: 'user',
        name: 'Generic User',
        tenant_id: null,
        tenants: [],
      });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const dirs = useTempDirs();
const browser = consentBrowser();
/** svc in-process on the real clock, its browser the one above. */
const svc = (args: string[], options: { env: Record<string, string> }) =>
  runInProcess(args, { ...dirs(), ...options.env }, { now: Date.now(), browser });
const files = useTempDir('svc-generic-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

describe('login against another OAuth 2.0 server', () => {
  it('logs in with client_secret_post, the iss parameter, opaque tokens and extra response fields', async () => {
    const secretFile = join(files, 'secret');
    writeFileSync(secretFile, `${SECRET}\n`);
    const r = await svc(
      ['login', '--client-id', CLIENT_ID, '--client-secret-file', secretFile, '--scope', 'profile'],
      {
        env: {
          SVC_BASE_URL: `${origin}/api`,
          SVC_APP_URL: `${origin}/app`,
        },
      },
    );
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(browser.opened).toHaveLength(1);
    expect(r.stderr).toContain(`✓ logged in to ${origin}/api as Generic User (profile "default")`);
    expect(Object.keys(tokenForms[0]!).sort()).toEqual([
      'client_id',
      'client_secret',
      'code',
      'code_verifier',
      'grant_type',
      'redirect_uri',
    ]);
    const stored = JSON.parse(readFileSync(join(dirs().SVC_CONFIG_DIR, 'credentials.json'), 'utf8')).profiles
      .default;
    expect(stored).toMatchObject({
      type: 'oauth',
      access_token: 'opaque-access-1-0123456789',
      refresh_token: REFRESH,
      scope: 'profile',
      token_url: `${origin}/api/v1/oauth/token`,
    });
    expect(Date.parse(stored.expires_at) - Date.now()).toBeGreaterThan(100_000);
    const me = await svc(['me', '--json'], { env: {} });
    expect(JSON.parse(me.stdout).name).toBe('Generic User');
  });

  it('refreshes after a 401 and keeps the refresh token the server does not rotate', async () => {
    valid.clear();
    const me = await svc(['me', '--json'], { env: {} });
    expect(me.code, me.stderr).toBe(0);
    expect(tokenForms.at(-1)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: REFRESH,
      client_id: CLIENT_ID,
      client_secret: SECRET,
    });
    const stored = JSON.parse(readFileSync(join(dirs().SVC_CONFIG_DIR, 'credentials.json'), 'utf8')).profiles
      .default;
    expect(stored.access_token).toBe('opaque-access-2-0123456789');
    expect(stored.refresh_token).toBe(REFRESH);
  });

  it('never prints the code, the verifier or the secret, even when the server repeats them in its refusal', async () => {
    const secretFile = join(files, 'secret-echo');
    writeFileSync(secretFile, `${SECRET}\n`);
    const before = tokenForms.length;
    const r = await svc(
      ['login', '--client-id', CLIENT_ID, '--client-secret-file', secretFile, '--scope', 'echo'],
      { env: { SVC_BASE_URL: `${origin}/api`, SVC_APP_URL: `${origin}/app` } },
    );
    await browser.settled();
    const sent = tokenForms.slice(before);
    expect(sent).toHaveLength(1);
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toMatch(
      /^error: the authorization code could not be exchanged for tokens: code \[redacted\] with verifier \[redacted\] and secret \[redacted\] refused \(invalid_grant\); run the login again$/m,
    );
    for (const secret of [sent[0]!.code!, sent[0]!.code_verifier!, SECRET])
      expect(r.stderr).not.toContain(secret);
  });
});
