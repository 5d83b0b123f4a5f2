import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess, useFreshDirs } from '../../helpers/context.js';
import { consentBrowser } from '../../helpers/oauth.js';

/**
 * review29a M1: a server where a client named svc-cli is confidential (the reference never names
 * svc-cli; its token requests identify a client by id and secret). svc sends svc-cli no secret
 * from anywhere (src/auth/client-secret.ts), so nothing through svc-cli logs in there: the
 * invalid_client hint and the refusal of a secret flag must name the ways that work
 * (`svc login --with-token`, or --client-id of another client with its secret), never a secret
 * source svc refuses or ignores. The server below answers invalid_client to every token and
 * device request that carries no client_secret.
 */
let server: Server;
let origin: string;
/** The token and device requests, and whether each carried a secret. */
let requests: Array<{ path: string; secret: boolean }> = [];

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(response, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/oauth/authorize`,
        token_endpoint: `${origin}/v1/oauth/token`,
        device_authorization_endpoint: `${origin}/v1/oauth/device_authorization`,
      });
    }
    if (request.method === 'GET' && url.pathname === '/oauth/authorize') {
      const q = url.searchParams;
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', 'code-0123456789');
      back.searchParams.set('state', q.get('state')!);
      response.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (request.method === 'POST') {
      let body = '';
      request.on('data', (d) => {
        body += d;
      });
      request.on('end', () => {
        const form = new URLSearchParams(body);
        requests.push({ path: url.pathname, secret: form.has('client_secret') });
        if (!form.has('client_secret')) return json(response, 401, { error: 'invalid_client' });
        return json(response, 400, { error: 'invalid_grant' });
      });
      return;
    }
    json(response, 404, { error: { code: 'not_found', message: 'no such path' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);
beforeEach(() => {
  requests = [];
});

const dirs = useFreshDirs('svc-confidential-svc-cli-');
const env = (extra: Record<string, string> = {}) => ({
  ...dirs(),
  SVC_BASE_URL: origin,
  SVC_CLIENT_ID: 'svc-cli',
  ...extra,
});
const wayOut =
  "if this server registered svc-cli as confidential, log in with `svc login --with-token`, or pass --client-id of a client it registered for you, with that client's secret";
/** What a browser login says up to the browser's answer (the URL it opened). */
const opening = (link: string) =>
  'opening the login page in your browser; if it does not open, visit:\n' +
  `  ${link}\n` +
  `waiting for the browser on ${new URL(link).searchParams.get('redirect_uri')} (up to 5 minutes; Ctrl-C to cancel)…\n`;
const exchangeRefused = `error: the authorization code could not be exchanged for tokens: 401 Unauthorized (invalid_client); svc sends no secret for svc-cli, its own public client: ${wayOut}\n`;

describe('svc-cli on a server that registered it as confidential', () => {
  it('svc login: the invalid_client hint names the ways that work, not a secret option', async () => {
    const browser = consentBrowser();
    const r = await runInProcess(['login'], env(), { browser });
    await browser.settled();
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toBe(opening(browser.opened[0]!) + exchangeRefused);
    expect(r.stderr).not.toContain('--client-secret-file');
    expect(requests).toEqual([{ path: '/v1/oauth/token', secret: false }]);
  });

  it('svc login with SVC_CLIENT_SECRET set: warned it is not sent, then the same hint', async () => {
    const browser = consentBrowser();
    const r = await runInProcess(['login'], env({ SVC_CLIENT_SECRET: 'the-secret-0123456789' }), { browser });
    await browser.settled();
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toBe(
      "warning: SVC_CLIENT_SECRET is set but not sent: svc-cli is svc's own public client (it proves itself with PKCE); unset SVC_CLIENT_SECRET unless another client needs it\n" +
        opening(browser.opened[0]!) +
        exchangeRefused,
    );
    expect(requests).toEqual([{ path: '/v1/oauth/token', secret: false }]);
  });

  it('svc login --device: the refused device request has the same hint', async () => {
    const r = await runInProcess(['login', '--device'], env());
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toBe(
      `error: the server refused to start a device login: 401 Unauthorized (invalid_client); svc sends no secret for svc-cli, its own public client: ${wayOut}\n`,
    );
    expect(requests).toEqual([{ path: '/v1/oauth/device_authorization', secret: false }]);
  });

  it('svc login --client-secret-file: refused (exit 2) before any request, naming the same ways', async () => {
    const file = join(dirs().SVC_CONFIG_DIR, '..', 'secret');
    writeFileSync(file, 'the-secret-0123456789\n', { mode: 0o600 });
    const browser = consentBrowser();
    const r = await runInProcess(['login', '--client-secret-file', file], env(), { browser });
    expect([r.code, r.stdout, browser.opened]).toEqual([2, '', []]);
    expect(r.stderr).toBe(
      `error: svc-cli is svc's own public client and takes no client secret (it proves itself with PKCE; a secret sent for it is refused with invalid_client): leave out --client-secret-file; ${wayOut}\n`,
    );
    expect(requests).toEqual([]);
  });
});
