// Over 300 lines: the HTTP client against real local servers, one behaviour per test.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { staticCredentials } from '../../src/auth/credentials.js';
import { AuthError, exitCodeFor, InterruptedError } from '../../src/errors.js';
import { ApiClient, type ClientConfig } from '../../src/http/client.js';
import {
  ConnectionError,
  ConnectionTimeoutError,
  InternalServerError,
  NotFoundError,
  OutcomeUnknownError,
} from '../../src/http/errors.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { virtualClock } from '../helpers/context.js';
import { useSandbox } from '../helpers/sandbox.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, hit: number) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A real local HTTP target that records what it received. */
async function target(handler: Handler) {
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body, seen.length);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen };
}

function client(baseUrl: string, extra: Partial<ClientConfig> = {}) {
  return new ApiClient({
    baseUrl,
    tenant: 't-1',
    org: 'o-1',
    credentials: staticCredentials('tok_canary_123456', 'test'),
    userAgent: 'svc/9.9.9',
    env: {},
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    ...extra,
  });
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('ApiClient', () => {
  it('sends the standard headers and an idempotency key in every POST body', async () => {
    const t = await target((_req, res) => json(res, 201, { ok: true }));
    await client(t.url).post('/v1/things', { name: 'x' });
    const [req] = t.seen;
    expect(req!.headers).toMatchObject({
      authorization: 'Bearer tok_canary_123456',
      'x-tenant-id': 't-1',
      'x-svc-org-id': 'o-1',
      'user-agent': 'svc/9.9.9',
      'content-type': 'application/json',
    });
    const body = JSON.parse(req!.body);
    expect(body.name).toBe('x');
    expect(body.idempotency_key).toMatch(/^svc_[0-9a-f-]{36}$/);
    expect(req!.headers['idempotency-key']).toBe(body.idempotency_key);
  });

  it('reuses one idempotency key on every retry of a POST', async () => {
    const t = await target((_req, res, _b, hit) =>
      hit < 3
        ? json(res, 503, { error: { code: 'x', message: 'busy' } }, { 'retry-after': '0' })
        : json(res, 201, {}),
    );
    await client(t.url).post('/v1/things', { name: 'x' });
    const keys = t.seen.map((s) => JSON.parse(s.body).idempotency_key);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it.each([
    ['GET', 500, 2],
    ['POST', 500, 1],
    ['POST', 502, 2],
    ['GET', 429, 2],
    ['GET', 404, 1],
  ])('%s answered %i is attempted %i time(s)', async (method, status, attempts) => {
    const t = await target((_req, res, _b, hit) =>
      hit === 1
        ? json(res, status, { error: { code: 'e', message: 'm' } }, { 'retry-after': '0' })
        : json(res, 200, {}),
    );
    await client(t.url)
      .request({
        method: method as 'GET' | 'POST',
        path: '/v1/x',
        ...(method === 'POST' ? { body: {} } : {}),
      })
      .catch(() => undefined);
    expect(t.seen).toHaveLength(attempts);
  });

  it('waits as long as Retry-After says (seconds and HTTP date)', async () => {
    const clock = virtualClock();
    const t = await target((_req, res, _b, hit) => {
      if (hit === 1) return json(res, 503, {}, { 'retry-after': '1' });
      // The date is the server's, measured from its Date (attack22 F3): both on the test's clock.
      const date = new Date(clock.now() + 1000).toUTCString();
      if (hit === 2)
        return json(res, 503, {}, { 'retry-after': date, date: new Date(clock.now()).toUTCString() });
      json(res, 200, { done: true });
    });
    const { data } = await client(t.url, { now: clock.now, sleep: clock.sleep }).get<{ done: boolean }>(
      '/v1/x',
    );
    expect(data.done).toBe(true);
    // HTTP dates have one-second resolution: the second wait is up to a second, never nothing.
    expect(clock.waits).toHaveLength(2);
    expect(clock.waits[0]).toBe(1000);
    expect(clock.waits[1]).toBeGreaterThan(0);
    expect(clock.waits[1]).toBeLessThanOrEqual(1000);
  });

  it('gives up after the retry budget with the typed error of the last answer', async () => {
    const t = await target((_req, res) =>
      json(res, 503, { error: { code: 'down', message: 'down' } }, { 'retry-after': '0' }),
    );
    const error = await client(t.url, { retry: { maxRetries: 2 } })
      .get('/v1/x')
      .catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 503, code: 'down' });
    expect(t.seen).toHaveLength(3);
  });

  it('a change answered 5xx: not retried on 500, and its outcome is unknown (but for 501)', async () => {
    const t = await target((req, res) =>
      json(res, req.url === '/v1/nope' ? 501 : 500, { error: { code: 'internal', message: 'boom' } }),
    );
    const error = await client(t.url)
      .request({ method: 'POST', path: '/v1/x', body: {} })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.answer).toMatchObject({ status: 500, code: 'internal' });
    expect(t.seen).toHaveLength(1);
    const refused = await client(t.url)
      .request({ method: 'DELETE', path: '/v1/nope' })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(InternalServerError);
    expect(refused).toMatchObject({ status: 501 });
  });

  it('slows every request after a 429 with Retry-After', async () => {
    const t = await target((_req, res, _b, hit) =>
      hit === 1 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, {}),
    );
    // Time moves only by waiting (virtualClock); the first request's wait holds until the test
    // wakes it.
    const clock = virtualClock();
    let asleep = () => {};
    const firstAsleep = new Promise<void>((resolve) => {
      asleep = resolve;
    });
    let wake = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    let calls = 0;
    const c = client(t.url, {
      now: clock.now,
      sleep: async (ms, signal) => {
        if (++calls === 1) {
          asleep();
          await woken;
        }
        await clock.sleep(ms, signal);
      },
    });
    const first = c.get('/v1/a');
    await firstAsleep;
    // While the first request waits out its 429, a second one waits for the same pause, though
    // its own answer is not a 429.
    await c.get('/v1/b');
    wake();
    await first;
    expect(clock.waits).toEqual([1000, 1000]);
    expect(t.seen.map((r) => r.url)).toEqual(['/v1/a', '/v1/b', '/v1/a']);
  });

  it('turns a refused connection into a ConnectionError (exit 1) after retrying', async () => {
    const t = await target(() => {});
    const port = new URL(t.url).port;
    await new Promise((r) => servers.pop()!.close(r));
    const error = await client(`http://127.0.0.1:${port}`, { retry: { maxRetries: 1 } })
      .get('/v1/x')
      .catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain('ECONNREFUSED');
    expect(exitCodeFor(error)).toBe(1);
  });

  it('times out a request that gets no answer', async () => {
    const t = await target(() => {});
    const error = await client(t.url, { timeoutMs: 200, retry: { maxRetries: 0 } })
      .get('/v1/x')
      .catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionTimeoutError);
  });

  it('aborts in-flight requests on Ctrl-C', async () => {
    const t = await target(() => {});
    const controller = new AbortController();
    const pending = client(t.url, { signal: controller.signal }).get('/v1/x');
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toBeInstanceOf(InterruptedError);
  });

  it.each([
    ['a replacement', 'fresh-token-abcdef', 'ok'],
    ['nothing', undefined, 'exit 3'],
    ['the same rejected token', 'stale-token-abcdef', 'exit 3'],
  ])('after a 401, renews once; when renewal gives %s → %s', async (_name, replacement, outcome) => {
    const t = await target((req, res) =>
      req.headers.authorization === 'Bearer fresh-token-abcdef'
        ? json(res, 200, { ok: true })
        : json(res, 401, { error: { code: 'token_expired', message: 'expired' } }),
    );
    let renewals = 0;
    const renewing = client(t.url, {
      credentials: {
        origin: 'test',
        token: async () => 'stale-token-abcdef',
        renew: async () => {
          renewals++;
          return replacement;
        },
        secrets: () => [],
      },
    });
    const result = await renewing.get<{ ok: boolean }>('/v1/x').catch((e) => e);
    expect(renewals).toBe(1);
    if (outcome === 'ok') {
      expect(result.data).toEqual({ ok: true });
    } else {
      expect(result).toBeInstanceOf(AuthError);
      expect(exitCodeFor(result)).toBe(3);
    }
  });

  it('renders unknown error bodies', async () => {
    const t = await target((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Nothing here</h1>');
    });
    const error = await client(t.url)
      .get('/v1/x')
      .catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('Nothing here');
  });

  it.each([
    ['json', 200, 'application/json', '{"a":1}', { a: 1 }],
    ['json', 204, undefined, '', undefined],
    ['optional', 200, 'application/json', '', undefined],
    ['optional', 200, 'application/json', '[1]', [1]],
    ['raw', 200, 'text/plain', 'words', 'words'],
    ['raw', 200, 'application/json', 'null', null],
  ] as const)('expect %s: %i %s %j → %j', async (expect_, status, type, body, data) => {
    const t = await target((_req, res) => {
      res.writeHead(status, type ? { 'content-type': type } : {});
      res.end(body);
    });
    const response = await client(t.url).request({ method: 'GET', path: '/v1/x', expect: expect_ });
    expect(response.data).toEqual(data);
  });

  it.each([
    ['optional', 'text/html', '<p>'],
    ['optional', 'application/json', 'null'],
    ['json', 'application/json', ''],
  ] as const)('expect %s refuses %s %j (exit 1, never retried)', async (expect_, type, body) => {
    const t = await target((_req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
    const error = await client(t.url)
      .request({ method: 'GET', path: '/v1/x', expect: expect_ })
      .catch((e) => e);
    expect(error.code).toBe('bad_response');
    expect(exitCodeFor(error)).toBe(1);
    expect(t.seen).toHaveLength(1);
  });

  it('learns secret-named values it receives, so later traces mask them', async () => {
    const t = await target((_req, res, _b, hit) =>
      hit === 1
        ? json(res, 201, { key: 'issued_key_value_123' })
        : json(res, 200, { echo: 'issued_key_value_123' }),
    );
    const traces: string[] = [];
    const c = client(t.url, { debug: (text) => traces.push(text) });
    await c.post('/v1/keys', {});
    await c.get('/v1/echo');
    expect(traces.join('')).not.toContain('issued_key_value_123');
  });
});

describe('ApiClient against the sandbox', () => {
  const sandbox = useSandbox();
  const tenant = tenantId('acme-treasury');

  it('never applies a POST twice under 30% injected failures, before and after the handler', async () => {
    sandbox().faults.update({ fail_rate: 0.3, drop_rate: 0.1, phase: 'both', retry_after: '0', seed: 7 });
    try {
      const api = client(sandbox().url, {
        tenant,
        org: undefined,
        credentials: staticCredentials(sandbox().adminToken, 'admin'),
        retry: { maxRetries: 12, baseDelayMs: 1, maxDelayMs: 5 },
      });
      for (let i = 0; i < 40; i++) await api.post('/v1/accounts', { n: i });
      const items: Array<{ n: number }> = [];
      for await (const item of api.paginate<{ n: number }>('/v1/accounts', { limit: 7 })) items.push(item);
      expect(items.map((r) => r.n)).toEqual([...Array(40).keys()]);
      await api.close();
    } finally {
      sandbox().faults.update({ fail_rate: 0, drop_rate: 0 });
    }
    expect(sandbox().state.records.count(tenant, 'accounts')).toBe(40);
  });
});
