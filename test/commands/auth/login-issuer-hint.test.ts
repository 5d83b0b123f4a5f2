import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startInProcess, useTempDirs } from '../../helpers/context.js';
import { issuerNoticeClock } from '../../helpers/oauth.js';
import { held as holds } from '../../helpers/signal-holds.js';

/**
 * The login's read of the server's metadata (RFC 8414) for its RFC 9207 promise is a hint
 * (review28c F1–F3): it never delays the login URL (the server below holds every metadata
 * request until the test answers it, after the URL is on screen), makes one attempt (no retry
 * lines), lets Ctrl-C through, and a failed read, no metadata or another issuer's is no promise:
 * a response without `iss` is then taken. Only this server's own promise refuses one.
 */
const CLIENT_ID = 'public-client';

let server: Server;
let origin: string;
/** Metadata requests, held until the test answers them. */
let held: ServerResponse[] = [];
let metadataRequests = 0;
/** Whether the authorization redirect carries `iss`. */
let sendIss = false;
/** Whether the authorization redirect is an error response (`error=access_denied`) instead of a code. */
let deny = false;
const codes = new Set<string>();

function json(response: ServerResponse, status: number, body: unknown, headers = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      metadataRequests += 1;
      held.push(response);
      return;
    }
    if (request.method === 'GET' && url.pathname === '/oauth/authorize') {
      const q = url.searchParams;
      const code = `code-${codes.size + 1}-0123456789`;
      codes.add(code);
      const back = new URL(q.get('redirect_uri')!);
      if (deny) back.searchParams.set('error', 'access_denied');
      else back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      if (sendIss) back.searchParams.set('iss', origin);
      response.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (request.method === 'POST' && url.pathname === '/v1/oauth/token') {
      let body = '';
      request.on('data', (d) => {
        body += d;
      });
      request.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        if (form.client_id !== CLIENT_ID || form.client_secret !== undefined)
          return json(response, 401, { error: 'invalid_client' });
        if (!codes.delete(form.code ?? '')) return json(response, 400, { error: 'invalid_grant' });
        return json(response, 200, {
          access_token: 'opaque-access-0123456789',
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: 'opaque-refresh-0123456789',
        });
      });
      return;
    }
    if (request.method === 'GET' && url.pathname === '/v1/me') {
      return json(response, 200, { id: 'u1', type: 'user', name: 'Hint User', tenant_id: null, tenants: [] });
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
/**
 * The login's wait of ISSUER_NOTICE_MS before it says it waits for the read (issuer-check.ts)
 * ends only when the test opens it (`clock.open()`), so no line depends on which comes first;
 * every other wait is real (the time is the fixed one startInProcess uses without a clock).
 */
let clock = issuerNoticeClock();

beforeEach(() => {
  clock = issuerNoticeClock();
  codes.clear();
  held = [];
  metadataRequests = 0;
  sendIss = false;
  deny = false;
});

const dirs = useTempDirs();

/** Answers the held metadata request(s) as the case says. */
function answerMetadata(how: 'none' | '503' | '429' | 'other' | 'promise'): void {
  for (const response of held.splice(0)) {
    if (how === 'none') json(response, 404, { error: { code: 'not_found', message: 'no such path' } });
    else if (how === '503') json(response, 503, { error: { code: 'unavailable', message: 'try later' } });
    else if (how === '429')
      json(response, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '5' });
    else
      json(response, 200, {
        issuer: how === 'other' ? 'https://other.example' : origin,
        authorization_endpoint: `${origin}/oauth/authorize`,
        token_endpoint: `${origin}/v1/oauth/token`,
        authorization_response_iss_parameter_supported: true,
      });
  }
}

/** Until `held` has the metadata request (it is made alongside the URL, so it may come just after). */
async function metadataHeld(): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (held.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
}

/** Until the server has sent the browser back with a code. */
async function authorized(): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (codes.size === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
}

let cases = 0;

/** A login up to its printed URL, with the metadata read not answered yet. */
async function loginUpToUrl() {
  // A config of its own: no earlier login to end (its revocation would read the metadata too).
  const run = startInProcess(
    ['login', '--client-id', CLIENT_ID, '--no-browser'],
    {
      ...dirs(),
      SVC_CONFIG_DIR: join(dirs().SVC_CONFIG_DIR, `case-${++cases}`),
      SVC_BASE_URL: origin,
    },
    { clock },
  );
  const [, link] = await run.waitForStderr(/^ {2}(http\S+)$/m);
  await run.waitForStderr(/waiting for the browser on /);
  await metadataHeld();
  // The URL is on screen while the metadata request is unanswered.
  expect(held).toHaveLength(1);
  return { run, link: link! };
}

const urlLines = (link: string, redirectUri: string) => [
  'open this URL in a browser, on this machine or any other, to log in:',
  `  ${link}`,
  `waiting for the browser on ${redirectUri} (up to 5 minutes; Ctrl-C to cancel)…`,
];

/** The browser: the authorization URL, then its redirect to svc's loopback (held until the login ends). */
function follow(link: string): Promise<{ status: number; text: string }> {
  return fetch(link).then(async (page) => ({ status: page.status, text: await page.text() }));
}

describe('svc login reads the server metadata alongside the URL, as a hint', () => {
  for (const how of ['none', '503', '429', 'other'] as const) {
    it(`takes a response without iss when the metadata read gives no promise (${how}), with one attempt and no retry lines`, async () => {
      const { run, link } = await loginUpToUrl();
      const redirectUri = new URL(link).searchParams.get('redirect_uri')!;
      answerMetadata(how);
      const page = await follow(link);
      const r = await run.done;
      expect([r.code, page.status], r.stderr).toEqual([0, 200]);
      expect(r.stderr.split('\n')).toEqual([
        ...urlLines(link, redirectUri),
        `✓ logged in to ${origin} as Hint User (profile "default")`,
        '  the access token expires in 60 minutes (refreshed automatically)',
        '',
      ]);
      expect(metadataRequests).toBe(1);
      // The read's signal is unlinked from the command's once the login ends (review28e L6:
      // AbortSignal.any kept one entry per login on it for good on Node 20).
      expect(holds(run.signal)).toEqual({ dependants: 0, listeners: 0 });
    });
  }

  it('refuses a response without iss when this server promises one, once the read answers after the redirect', async () => {
    const { run, link } = await loginUpToUrl();
    const redirectUri = new URL(link).searchParams.get('redirect_uri')!;
    const page = follow(link);
    // The redirect is on its way (whichever comes first, the outcome is the same).
    await authorized();
    answerMetadata('promise');
    const r = await run.done;
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')).toEqual([
      ...urlLines(link, redirectUri),
      'error: the authorization response has no iss, though this server says it always sends one (authorization_response_iss_parameter_supported): it may come from another server; run the login again, and open only the URL svc printed (RFC 9207 mix-up protection)',
      '',
    ]);
    expect((await page).text).toContain('the response does not say which authorization server sent it');
  });

  // review28e L4: RFC 9207 §2.4 covers error responses too: one without `iss` may be another
  // server's, so it is not said as this server's refusal ("authorization was denied").
  it('refuses an error response without iss when this server promises one, once the read answers after it', async () => {
    deny = true;
    const { run, link } = await loginUpToUrl();
    const redirectUri = new URL(link).searchParams.get('redirect_uri')!;
    const page = follow(link);
    await authorized();
    answerMetadata('promise');
    const r = await run.done;
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')).toEqual([
      ...urlLines(link, redirectUri),
      'error: the authorization response has no iss, though this server says it always sends one (authorization_response_iss_parameter_supported): it may come from another server; run the login again, and open only the URL svc printed (RFC 9207 mix-up protection)',
      '',
    ]);
    // The page says what the terminal says, not the server's error (was: "You denied the request.").
    expect(await page).toEqual({
      status: 400,
      text: expect.stringContaining(
        '<h1>Login failed</h1><p>svc could not finish: the response does not say which authorization server sent it. See your terminal for why and what to do.</p>',
      ),
    });
  });

  it('says the denial of an error response without iss when the metadata gives no promise', async () => {
    deny = true;
    const { run, link } = await loginUpToUrl();
    answerMetadata('none');
    const page = await follow(link);
    const r = await run.done;
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n').at(-2)).toBe(
      'error: authorization was denied: access_denied; run the login again and choose Approve',
    );
    // Held until svc took the error as this server's, then said as before.
    expect(page).toEqual({
      status: 400,
      text: expect.stringContaining(
        '<h1>Login failed</h1><p>You denied the request. Return to your terminal.</p>',
      ),
    });
  });

  // review28e (also noted): the wait on the read after a response without iss (up to 10 s) was silent,
  // and the tab spun. The read is held by the test's server until the line and the page are seen.
  for (const denied of [false, true]) {
    it(`says it waits for the read after ${denied ? 'an error response' : 'a code'} without iss, and answers the tab with a page that claims nothing`, async () => {
      deny = denied;
      const { run, link } = await loginUpToUrl();
      const redirectUri = new URL(link).searchParams.get('redirect_uri')!;
      const page = follow(link);
      await authorized();
      clock.open();
      await run.waitForStderr(/asking the server whether it promises one/);
      // The tab is answered while the read is still unanswered.
      expect(await page).toEqual({
        status: 200,
        text: expect.stringContaining(
          '<h1>Checking the response</h1><p>svc is asking the server whether this response is its own. See your terminal for how it ends; you can close this tab.</p>',
        ),
      });
      expect(held).toHaveLength(1);
      answerMetadata('promise');
      const r = await run.done;
      expect(r.code).toBe(3);
      expect(r.stderr.split('\n')).toEqual([
        ...urlLines(link, redirectUri),
        'the response has no iss: asking the server whether it promises one (up to 10 s)…',
        'error: the authorization response has no iss, though this server says it always sends one (authorization_response_iss_parameter_supported): it may come from another server; run the login again, and open only the URL svc printed (RFC 9207 mix-up protection)',
        '',
      ]);
    });
  }

  it('logs in with a response carrying iss while the metadata never answers', async () => {
    sendIss = true;
    const { run, link } = await loginUpToUrl();
    const redirectUri = new URL(link).searchParams.get('redirect_uri')!;
    const page = await follow(link);
    const r = await run.done;
    expect([r.code, page.status], r.stderr).toEqual([0, 200]);
    expect(r.stderr.split('\n')).toEqual([
      ...urlLines(link, redirectUri),
      `✓ logged in to ${origin} as Hint User (profile "default")`,
      '  the access token expires in 60 minutes (refreshed automatically)',
      '',
    ]);
    held.splice(0).forEach((response) => {
      response.destroy();
    });
  });

  it('lets Ctrl-C through while the metadata read is unanswered (exit 130)', async () => {
    const { run, link } = await loginUpToUrl();
    const redirectUri = new URL(link).searchParams.get('redirect_uri')!;
    run.interrupt();
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr.split('\n')).toEqual([
      ...urlLines(link, redirectUri),
      'error: interrupted; the login was cancelled',
      '',
    ]);
    held.splice(0).forEach((response) => {
      response.destroy();
    });
  });

  it('lets Ctrl-C through while it waits for the read after a response without iss (exit 130)', async () => {
    const { run, link } = await loginUpToUrl();
    const page = follow(link);
    page.catch(() => undefined);
    await authorized();
    run.interrupt();
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr.split('\n').at(-2)).toMatch(/^error: interrupted/);
    held.splice(0).forEach((response) => {
      response.destroy();
    });
  });
});
