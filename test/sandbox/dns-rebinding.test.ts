import { request } from 'node:http';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { machineNames } from '../../src/sandbox/plugins/host-origin.js';
import { buildSandbox } from '../../src/sandbox/server.js';
import { authorizeUrl, createClient } from '../helpers/oauth.js';
import { requestCount, useSandbox } from '../helpers/sandbox.js';

// Session 17 (attack17 A6): the sandbox answered any Host. After DNS rebinding, a web page on
// rebind.attacker.example:PORT is same-origin with the loopback sandbox: it minted an admin token
// from /_sandbox/tokens, called the API with it and read a webhook's signing secret. A Host that
// is not an IP address, localhost or the sandbox's own host is refused (421), and so is a
// state-changing request from another origin (403).
const sandbox = useSandbox();

/** A request as a browser sends it, Host and Origin included (fetch cannot set Host). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const url = new URL(sandbox().url);
  const sent = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(sent === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text || 'null') }));
      },
    );
    req.on('error', reject);
    req.end(sent);
  });
}

const port = () => new URL(sandbox().url).port;
const answer = (r: { status: number; body: any }) => [r.status, r.body?.error?.code, r.body?.error?.message];

describe('a Host the sandbox does not serve (DNS rebinding) is refused', () => {
  it('minting a token, calling the API and reading a secret: 421 misdirected_request, nothing done', async () => {
    const rebound = `rebind.attacker.example:${port()}`;
    const browser = { host: rebound, origin: `http://${rebound}` };
    const refusal = [
      421,
      'misdirected_request',
      `this sandbox does not serve the host rebind.attacker.example (a web page that rebound its name to this address?); use its own URL, ${sandbox().url}, or http://localhost:${port()}`,
    ];
    expect(answer(await raw('POST', '/_sandbox/tokens', browser, { user_id: 'usr_admin' }))).toEqual(refusal);
    expect(
      answer(await raw('GET', '/v1/me', { ...browser, authorization: `Bearer ${sandbox().adminToken}` })),
    ).toEqual(refusal);
    expect(
      answer(await raw('GET', `/_sandbox/webhooks/${SEEDED_WEBHOOKS.exceptions}/secret`, browser)),
    ).toEqual(refusal);
  });

  it.each([
    ['the URL it was given', () => new URL(sandbox().url).host],
    ['localhost', () => `localhost:${port()}`],
    ['another loopback address', () => `127.0.0.2:${port()}`],
    ['IPv6 loopback', () => `[::1]:${port()}`],
    // review18 R18-4: names browsers resolve to loopback themselves (RFC 6761 §6.3), no DNS asked.
    ['localhost. (its absolute form)', () => `localhost.:${port()}`],
    ['a name under .localhost', () => `app.localhost:${port()}`],
    ['a name under .localhost., absolute', () => `app.localhost.:${port()}`],
  ])('a request to %s is served', async (_, host) => {
    const r = await raw('GET', '/v1/me', { host: host(), authorization: `Bearer ${sandbox().adminToken}` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it.each([['localhost.attacker.example'], ['evil-localhost'], ['localhost.example']])(
    'a request to %s (a name DNS answers) is 421',
    async (name) => {
      const r = await raw('GET', '/v1/me', { host: `${name}:${port()}` });
      expect([r.status, r.body.error?.code]).toEqual([421, 'misdirected_request']);
    },
  );

  it('a sandbox bound with --host <name> serves that name too, and no other', async () => {
    const { app } = await buildSandbox({ host: 'vm', seed: 'none' });
    try {
      const clock = (host: string) =>
        app.inject({ method: 'GET', url: '/_sandbox/clock', headers: { host } });
      expect((await clock('vm:4010')).statusCode).toBe(200);
      expect((await clock('vm2:4010')).statusCode).toBe(421);
    } finally {
      await app.close();
    }
  });
});

// Session 17 (closing list): bound to every interface (--host 0.0.0.0), the sandbox refused the
// machine's own name, the one a LAN peer uses, unless it was given as --host. It serves it now
// (os.hostname(), and a dotted one's first label), and still no other name.
describe('a sandbox bound to every interface serves the machine’s own name', () => {
  const own = hostname().toLowerCase();
  it.each(['0.0.0.0', '::'])(
    '--host %s: the host’s own name is served, another name is not',
    async (host) => {
      const { app } = await buildSandbox({ host, seed: 'none' });
      try {
        const clock = (name: string) =>
          app.inject({ method: 'GET', url: '/_sandbox/clock', headers: { host: name } });
        expect((await clock(`${own}:4010`)).statusCode).toBe(200);
        expect((await clock(`${own.toUpperCase()}:4010`)).statusCode).toBe(200);
        const other = await clock(`not-${own}.attacker.example:4010`);
        expect([other.statusCode, other.json().error.code]).toEqual([421, 'misdirected_request']);
      } finally {
        await app.close();
      }
    },
  );

  it('bound to loopback (the default), the machine’s name stays refused', async () => {
    const { app } = await buildSandbox({ seed: 'none' });
    try {
      const r = await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: { host: `${own}:4010` } });
      expect(r.statusCode).toBe(own === 'localhost' || isIP(own) !== 0 ? 200 : 421);
    } finally {
      await app.close();
    }
  });

  it.each<[string, string[]]>([
    ['build-7.corp.example', ['build-7.corp.example', 'build-7']],
    ['VM', ['vm']],
    ['vm.', ['vm']],
    ['', []],
    ['bad name', []],
  ])('machineNames(%j) is %j', (name, names) => {
    expect(machineNames(name)).toEqual(names);
  });
});

describe('a state-changing request from another origin is refused', () => {
  it.each([
    ['another site', 'https://attacker.example'],
    ['another local port', 'http://127.0.0.1:1'],
    ['an opaque origin', 'null'],
  ])('from %s: 403 cross_origin_forbidden', async (_, origin) => {
    const before = await requestCount(sandbox());
    const r = await raw(
      'POST',
      '/_sandbox/tokens',
      { host: new URL(sandbox().url).host, origin },
      { user_id: 'usr_admin' },
    );
    expect(answer(r)).toEqual([
      403,
      'cross_origin_forbidden',
      `a POST from the origin ${origin} is refused: only pages of the sandbox itself (${sandbox().url}) may change it; send the request without an Origin, or from ${sandbox().url}`,
    ]);
    expect(await requestCount(sandbox())).toBe(before);
  });

  it('its own origin, or none (svc, curl), changes it; a read from anywhere is answered', async () => {
    const own = await raw(
      'POST',
      '/_sandbox/tokens',
      { host: new URL(sandbox().url).host, origin: new URL(sandbox().url).origin },
      { user_id: 'usr_admin' },
    );
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const none = await raw(
      'POST',
      '/_sandbox/tokens',
      { host: new URL(sandbox().url).host },
      { user_id: 'usr_admin' },
    );
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    const read = await raw('GET', '/_sandbox/clock', {
      host: new URL(sandbox().url).host,
      origin: 'https://x.example',
    });
    expect(read.status).toBe(200);
  });

  it('the consent page approves from its own origin, and not from another (its form carries the ticket)', async () => {
    const client = await createClient(sandbox());
    const url = authorizeUrl(sandbox(), {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1/callback',
      scope: 'read:exceptions',
      state: 's',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const approve = async (origin: string) => {
      const html = await (await fetch(url)).text();
      const ticket = /name="ticket" value="([^"]+)"/.exec(html)![1]!;
      return fetch(new URL('authorize', url), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({ ticket, user_id: 'usr_admin', decision: 'approve' }).toString(),
      });
    };
    const own = await approve(new URL(sandbox().url).origin);
    expect(own.status).toBe(303);
    expect(new URL(own.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const other = await approve('https://attacker.example');
    expect([other.status, ((await other.json()) as any).error.code]).toEqual([403, 'cross_origin_forbidden']);
  });
});
