// Over 300 lines: mostly tables of exact inputs and outputs, one block per function, so a
// module's whole contract reads in one file.
// What the one HTTP client (src/http/client.ts) puts on the wire and what it makes of answers,
// against a local recording server: headers, query strings, methods, pages, changes reported,
// credentials refused or renewed, waits for an earlier attempt. test/http/client.test.ts covers
// retries and failures; this file pins the request itself, field by field.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type CredentialSource, staticCredentials } from '../../src/auth/credentials.js';
import { AuthError, UsageError } from '../../src/errors.js';
import { ApiClient, type ClientConfig } from '../../src/http/client.js';
import { OutcomeUnknownError } from '../../src/http/errors.js';
import { BadResponseError } from '../../src/http/response.js';
import { virtualClock } from '../helpers/context.js';

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A local server answering from a script (the last answer repeats), recording every request. */
async function serve(script: Reply[] | ((seen: Seen, n: number) => Reply)) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(request);
      const reply =
        typeof script === 'function'
          ? script(request, seen.length)
          : (script[seen.length - 1] ?? script.at(-1)!);
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function client(baseUrl: string, extra: Partial<ClientConfig> = {}) {
  return new ApiClient({
    baseUrl,
    tenant: 'ten_1',
    org: 'org_1',
    credentials: staticCredentials('tok_client_0123456789', 'SVC_TOKEN'),
    userAgent: 'svc/1.2.3 test',
    env: {},
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
}

describe('the request', () => {
  it('a GET: accept, user agent, tenant, org and bearer headers; the query without empty values', async () => {
    const s = await serve([{ status: 200, body: { ok: true } }]);
    const answer = await client(s.url).get('/v1/x', {
      a: 1,
      b: undefined,
      c: null,
      d: ['p', 2],
      e: false,
      f: 'y z',
    });
    expect(answer).toMatchObject({ status: 200, data: { ok: true }, requestId: undefined });
    expect(s.seen[0]!.method).toBe('GET');
    expect(s.seen[0]!.url).toBe('/v1/x?a=1&d=p&d=2&e=false&f=y+z');
    expect(s.seen[0]!.headers).toMatchObject({
      accept: 'application/json',
      'user-agent': 'svc/1.2.3 test',
      'x-tenant-id': 'ten_1',
      'x-svc-org-id': 'org_1',
      authorization: 'Bearer tok_client_0123456789',
    });
    expect(s.seen[0]!.headers['content-type']).toBeUndefined();
    expect(s.seen[0]!.headers['idempotency-key']).toBeUndefined();
    expect(s.seen[0]!.body).toBe('');
  });

  it('a POST gets a fresh idempotency key, in the header and the body alike', async () => {
    const s = await serve([{ status: 201, body: { id: 'r1' }, headers: { 'x-request-id': 'req_9' } }]);
    const answer = await client(s.url).post('/v1/roles', { name: 'n' });
    expect(answer.requestId).toBe('req_9');
    const key = s.seen[0]!.headers['idempotency-key'];
    expect(key).toMatch(/^svc_[0-9a-f-]{36}$/);
    expect(JSON.parse(s.seen[0]!.body)).toEqual({ name: 'n', idempotency_key: key });
    expect(s.seen[0]!.headers['content-type']).toBe('application/json');
  });

  it('a POST with the caller’s key, a form, PATCH and DELETE', async () => {
    const s = await serve([{ status: 200, body: {} }]);
    const c = client(s.url);
    await c.post('/v1/a', { x: 1 }, { idempotencyKey: 'svc_mine' });
    await c.request({ method: 'POST', path: '/v1/token', form: { grant_type: 'g' }, auth: false });
    await c.patch('/v1/b', { y: 2 });
    await c.delete('/v1/c', { expect: 'optional' });
    expect(s.seen.map((r) => [r.method, r.url, r.headers['idempotency-key'], r.body])).toEqual([
      ['POST', '/v1/a', 'svc_mine', '{"x":1,"idempotency_key":"svc_mine"}'],
      ['POST', '/v1/token', undefined, 'grant_type=g'],
      // A PATCH or DELETE carries a fresh key in the header (its retries would reuse it).
      ['PATCH', '/v1/b', expect.stringMatching(/^svc_/), '{"y":2}'],
      ['DELETE', '/v1/c', expect.stringMatching(/^svc_/), ''],
    ]);
    expect(s.seen[1]!.headers.authorization).toBeUndefined();
    expect(s.seen[1]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('the tenant can be overridden or left out, and headers are lower-cased', async () => {
    const s = await serve([{ status: 200, body: {} }]);
    const c = client(s.url, { org: undefined });
    await c.get('/v1/a', undefined, { tenant: 'ten_2', headers: { 'X-Extra': 'v', Accept: 'text/plain' } });
    await c.get('/v1/b', undefined, { tenant: null });
    expect(s.seen[0]!.headers).toMatchObject({
      'x-tenant-id': 'ten_2',
      'x-extra': 'v',
      accept: 'text/plain',
    });
    expect(s.seen[0]!.headers['x-svc-org-id']).toBeUndefined();
    expect(s.seen[1]!.headers['x-tenant-id']).toBeUndefined();
  });

  it('tells of every accepted change, never of a read', async () => {
    const s = await serve([{ status: 200, body: {}, headers: { 'x-request-id': 'req_c' } }]);
    const changes: unknown[] = [];
    const c = client(s.url, { onChange: (change) => changes.push(change) });
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      await c.request({ method, path: `/v1/${method.toLowerCase()}`, expect: 'raw' });
    }
    expect(changes).toEqual(
      ['POST', 'PUT', 'PATCH', 'DELETE'].map((method) => ({
        method,
        path: `/v1/${method.toLowerCase()}`,
        status: 200,
        requestId: 'req_c',
      })),
    );
  });

  it('a refused change is not reported', async () => {
    const s = await serve([{ status: 404, body: { error: { code: 'nope', message: 'gone' } } }]);
    const changes: unknown[] = [];
    await expect(client(s.url, { onChange: (c) => changes.push(c) }).delete('/v1/x')).rejects.toThrow('gone');
    expect(changes).toEqual([]);
  });
});

describe('credentials', () => {
  it('not logged in: an AuthError naming where the token should come from, with the login hint', async () => {
    const s = await serve([{ status: 200, body: {} }]);
    const c = client(s.url, {
      credentials: staticCredentials(undefined, 'profile "p"'),
      loginHint: 'run svc login',
    });
    await expect(c.get('/v1/me')).rejects.toMatchObject({
      message: 'not logged in: profile "p" has no credential',
      hint: 'run svc login',
    });
    expect(s.seen).toEqual([]);
    expect((await c.get('/v1/open', undefined, { auth: false })).status).toBe(200);
  });

  it('never sends a credential over plain HTTP to another host; --allow-insecure-http does', async () => {
    const refused = client('http://svc-test.invalid');
    await expect(refused.get('/v1/me')).rejects.toBeInstanceOf(UsageError);
    await expect(
      refused.request({ method: 'POST', path: '/t', form: {}, auth: false, secrets: ['s3cret-value'] }),
    ).rejects.toThrow(
      'refusing to send a credential over plain HTTP to svc-test.invalid (not a loopback address)',
    );
    // Without a credential, nothing to refuse: the request goes (and fails to connect).
    await expect(
      refused.get('/v1/open', undefined, { auth: false, maxRetries: 0 }),
    ).rejects.not.toBeInstanceOf(UsageError);
    const allowed = client('http://svc-test.invalid', { allowInsecureHttp: true });
    await expect(allowed.get('/v1/me', undefined, { maxRetries: 0 })).rejects.not.toBeInstanceOf(UsageError);
  });

  it('a 401 to a sent token renews it once; a second 401 is an AuthError naming the source', async () => {
    const s = await serve((req) =>
      req.headers.authorization === 'Bearer tok_renewed_0123456'
        ? { status: 401, body: { error: { code: 'token_expired', message: 'expired again' } } }
        : { status: 401, body: { error: { message: 'expired' } } },
    );
    const renewals: string[] = [];
    const credentials: CredentialSource = {
      origin: 'profile "p"',
      token: async () => 'tok_first_0123456',
      renew: async (rejected) => {
        renewals.push(rejected);
        return 'tok_renewed_0123456';
      },
      secrets: () => [],
    };
    const error = await client(s.url, { credentials, loginHint: 'log in' })
      .get('/v1/me')
      .catch((e: AuthError) => e);
    expect(renewals).toEqual(['tok_first_0123456']);
    expect(s.seen.map((r) => r.headers.authorization)).toEqual([
      'Bearer tok_first_0123456',
      'Bearer tok_renewed_0123456',
    ]);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({
      message: 'profile "p" was rejected: expired again',
      code: 'token_expired',
      hint: 'log in',
    });
  });

  it('a renewal that gives the same token is not retried; a 401 without a code is "unauthenticated"', async () => {
    const s = await serve([{ status: 401, body: { message: 'no' } }]);
    const credentials: CredentialSource = {
      origin: 'SVC_TOKEN',
      token: async () => 'tok_same_0123456',
      renew: async (rejected) => rejected,
      secrets: () => [],
    };
    const error = await client(s.url, { credentials })
      .get('/v1/me')
      .catch((e: AuthError) => e);
    expect(s.seen).toHaveLength(1);
    expect(error).toMatchObject({ message: 'SVC_TOKEN was rejected: no', code: 'unauthenticated' });
  });

  it('a 401 to a request without a credential stays the API error', async () => {
    const s = await serve([{ status: 401, body: { error: 'invalid_client' } }]);
    const error = await client(s.url)
      .request({ method: 'POST', path: '/t', form: {}, auth: false })
      .catch((e) => e);
    expect(error).not.toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_client' });
  });
});

describe('pages', () => {
  it('follows next_cursor from the given cursor, reading items, data or a bare array', async () => {
    const s = await serve((req) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor');
      if (cursor === 'c0') return { status: 200, body: { items: [1, 2], next_cursor: 'c1' } };
      if (cursor === 'c1') return { status: 200, body: { data: [3], next_cursor: 'c2' } };
      return { status: 200, body: [4] };
    });
    const pages: unknown[] = [];
    const all: number[] = [];
    for await (const n of client(s.url).paginate<number>('/v1/n', { cursor: 'c0', limit: 2 }, {}, (p) =>
      pages.push(p),
    )) {
      all.push(n);
    }
    expect(all).toEqual([1, 2, 3, 4]);
    expect(s.seen.map((r) => r.url)).toEqual([
      '/v1/n?cursor=c0&limit=2',
      '/v1/n?cursor=c1&limit=2',
      '/v1/n?cursor=c2&limit=2',
    ]);
    expect(pages).toHaveLength(3);
  });

  it('stops at an empty or absent cursor; a number as cursor is not one', async () => {
    const s = await serve([{ status: 200, body: { items: [1], next_cursor: '' } }]);
    const got: number[] = [];
    for await (const n of client(s.url).paginate<number>('/v1/n', { cursor: 5 as never })) got.push(n);
    expect(got).toEqual([1]);
    expect(s.seen[0]!.url).toBe('/v1/n');
  });

  it('refuses a page without items, and a cursor that repeats', async () => {
    const bad = await serve([{ status: 200, body: { things: [] } }]);
    const take = async (url: string) => {
      for await (const _ of client(url).paginate('/v1/n')) {
        // drain
      }
    };
    const error = await take(bad.url).catch((e) => e);
    expect(error).toBeInstanceOf(BadResponseError);
    expect(error.message).toBe('the server answered GET /v1/n with a page that has no list of items');
    await expect(take(bad.url)).rejects.toMatchObject({
      hint: 'is the base URL the API, not a web page or a proxy?',
    });
    const loop = await serve([{ status: 200, body: { items: [], next_cursor: 'same' } }]);
    await expect(take(loop.url)).rejects.toThrow(
      'the server sent the cursor "same" again after 2 pages (a cursor loop)',
    );
    expect(loop.seen).toHaveLength(2);
  });
});

describe('an earlier attempt still running (409 idempotency_request_in_progress)', () => {
  const busy = {
    status: 409,
    body: { error: { code: 'idempotency_request_in_progress', message: 'busy' } },
    headers: { 'retry-after': '0' },
  };

  it('waits for it and takes its answer', async () => {
    const s = await serve([busy, busy, { status: 201, body: { id: 'done' } }]);
    const answer = await client(s.url).post('/v1/roles', {}, { idempotencyKey: 'svc_k' });
    expect(answer.data).toEqual({ id: 'done' });
    expect(s.seen.map((r) => r.headers['idempotency-key'])).toEqual(['svc_k', 'svc_k', 'svc_k']);
  });

  it('gives up after 12 waits of at least 100 ms, saying the change may still complete', async () => {
    const s = await serve([busy]);
    const clock = virtualClock();
    const error = await client(s.url, { now: clock.now, sleep: clock.sleep })
      .post('/v1/roles', {}, { idempotencyKey: 'svc_k' })
      .catch((e) => e);
    expect(s.seen).toHaveLength(13);
    expect(clock.waits).toEqual(Array(12).fill(100));
    // Not a refusal: the platform may yet make the change (attack18b #11).
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect([error.message, error.hint, error.code]).toEqual([
      'the server is still working on this request (idempotency key svc_k) after svc waited 1 s for it; it may still complete, so the outcome is unknown: the platform may have made this change',
      'the platform is still processing it: check whether it was made before running the command again',
      'idempotency_request_in_progress',
    ]);
  });

  it("Stripe's 409 idempotency_key_in_use is waited for alike", async () => {
    const inUse = { ...busy, body: { error: { code: 'idempotency_key_in_use', message: 'busy' } } };
    const s = await serve([inUse, { status: 201, body: { id: 'done' } }]);
    const answer = await client(s.url).post('/v1/roles', {}, { idempotencyKey: 'svc_k' });
    expect(answer.data).toEqual({ id: 'done' });
    expect(s.seen).toHaveLength(2);
  });

  it('another 409 is an error at once', async () => {
    const s = await serve([{ status: 409, body: { error: { code: 'exists', message: 'role exists' } } }]);
    await expect(client(s.url).post('/v1/roles', {})).rejects.toMatchObject({ code: 'exists', status: 409 });
    expect(s.seen).toHaveLength(1);
  });
});
