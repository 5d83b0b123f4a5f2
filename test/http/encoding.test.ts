/**
 * Compressed answers (finding s9 servers 3): svc says which codings it reads (Accept-Encoding),
 * decodes gzip, deflate (zlib or raw) and br, keeps SVC_MAX_RESPONSE_BYTES a limit on the decoded
 * size (a compression bomb stops there), names a coding it cannot read in one line, and its
 * --debug trace shows the decoded body with the Content-Encoding header as it came.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { staticCredentials } from '../../src/auth/credentials.js';
import { ConfigStore } from '../../src/config/store.js';
import { ApiClient, type ClientConfig } from '../../src/http/client.js';
import { BadRequestError, NotFoundError } from '../../src/http/errors.js';
import { BadResponseError, ResponseTooLargeError } from '../../src/http/response.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { useHostileServer } from '../helpers/hostile.js';

const server = useHostileServer();

/** A hostile server answering every request with `handler`; `seen` holds each request's headers. */
async function target(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const s = await server();
  s.answer((req, res) => handler(req, res));
  return {
    url: s.url,
    get seen() {
      return s.seen.map((r) => r.headers);
    },
  };
}

function client(baseUrl: string, extra: Partial<ClientConfig> = {}) {
  return new ApiClient({
    baseUrl,
    tenant: 't-1',
    credentials: staticCredentials('tok_canary_123456', 'test'),
    userAgent: 'svc/9.9.9',
    env: {},
    retry: { baseDelayMs: 1, maxDelayMs: 1, maxRetries: 0 },
    ...extra,
  });
}

const encoders: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => gzipSync(b),
  'x-gzip': (b) => gzipSync(b),
  deflate: (b) => deflateSync(b),
  'deflate (raw)': (b) => deflateRawSync(b),
  br: (b) => brotliCompressSync(b),
  'gzip, br': (b) => brotliCompressSync(gzipSync(b)),
};

function compressed(res: ServerResponse, status: number, coding: string, body: unknown) {
  const header = coding.replace(' (raw)', '');
  res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': header });
  res.end(encoders[coding]!(Buffer.from(JSON.stringify(body))));
}

describe('compressed answers', () => {
  it('asks for the codings svc reads', async () => {
    const t = await target((_req, res) => compressed(res, 200, 'gzip', { ok: true }));
    await client(t.url).get('/v1/x');
    expect(t.seen[0]!['accept-encoding']).toBe('gzip, deflate, br');
  });

  it.each(Object.keys(encoders))('decodes a %s answer to a change', async (coding) => {
    const t = await target((_req, res) => compressed(res, 201, coding, { id: 'ra_1', note: 'é'.repeat(50) }));
    const answer = await client(t.url).post('/v1/users/usr_x/roles', { role: 'tenant_viewer' });
    expect(answer.data).toEqual({ id: 'ra_1', note: 'é'.repeat(50) });
  });

  it('decodes an error answer, so its message and class are the server’s', async () => {
    const t = await target((_req, res) =>
      compressed(res, 404, 'gzip', {
        error: { code: 'user_not_found', message: 'no such user', request_id: 'r' },
      }),
    );
    const error = await client(t.url)
      .get('/v1/users/x')
      .catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('no such user');
  });

  it('stops a compression bomb at SVC_MAX_RESPONSE_BYTES of decoded body', async () => {
    // 16 MiB of JSON that gzip makes some 16 KiB: within the limit on the wire, far over it decoded.
    const huge = Buffer.from(`{"items":["${'a'.repeat(16 * 1024 * 1024)}"]}`);
    const bomb = gzipSync(huge);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const t = await target((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const error = await client(t.url, { maxResponseBytes: 1024 * 1024 })
      .get('/v1/tenants')
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error.message).toBe('the answer to GET /v1/tenants is larger than 1 MiB; svc stopped reading it');
  });

  it('names a coding it cannot read, in one line', async () => {
    const t = await target((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
      res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]));
    });
    const error = await client(t.url)
      .post('/v1/users/usr_x/roles', { role: 'r' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BadResponseError);
    expect(error.message).toBe(
      'the server answered 201 with a body in Content-Encoding "zstd", which svc cannot decode, to POST /v1/users/usr_x/roles; nothing was written, and svc cannot tell whether the change was made',
    );
  });

  it('says a body that does not decode is not what its Content-Encoding says', async () => {
    const t = await target((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end('{"items":[]}');
    });
    const error = await client(t.url)
      .get('/v1/tenants')
      .catch((e) => e);
    expect(error).toBeInstanceOf(BadResponseError);
    expect(error.message).toBe(
      'the server answered 200 with a body that is not the gzip its Content-Encoding says (incorrect header check), to GET /v1/tenants',
    );
  });
});

describe('a compressed answer to a verb', () => {
  const dirs = useTempDirs();

  it('roles assign: ✓ from a gzip 201; --debug shows the header sent and the body decoded', async () => {
    const assignment = {
      user_id: 'usr_x',
      role_id: 'tenant_viewer',
      role_name: 'tenant_viewer',
      assigned_by: 'usr_admin',
      // Now: a grant assigned days before the run would be one in place (review26a H1).
      assigned_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      expires_at: '2099-01-15T13:00:00Z',
      audit_trail_id: 'aud_gz1',
    };
    // The answer names its granter: svc reads who the caller is (GET /v1/me), and a read that
    // fails would leave the grant unknown (review27b M2).
    const me = { id: 'usr_admin', type: 'user', name: 'Admin', email: null, tenant_id: null, tenants: [] };
    const t = await target((req, res) =>
      req.url?.startsWith('/v1/me')
        ? compressed(res, 200, 'gzip', me)
        : compressed(res, 201, 'gzip', assignment),
    );
    const r = await runInProcess(
      ['roles', 'assign', 'usr_x', 'tenant_viewer', '--expires-in', '1h', '--justification', 't', '--debug'],
      {
        ...dirs(),
        SVC_BASE_URL: t.url,
        SVC_TOKEN: 'tok_encoding_test_123456',
        SVC_TENANT: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
      },
    );
    // (The canned answer's expiry is not the one sent: a warning follows the ✓ line, attack18b 15.)
    expect([r.code, r.stderr.split('\n').at(-3)]).toEqual([0, expect.stringMatching(/✓/)]);
    expect(r.stderr).toContain('> accept-encoding: gzip, deflate, br\n');
    expect(r.stderr).toContain('< content-encoding: gzip\n');
    expect(r.stderr).toContain('"audit_trail_id":"aud_gz1"');
    expect(r.stderr).toMatch(/✓ .*aud_gz1/);
  });
});

/** An answer with a Content-Encoding but no body: a HEAD's, a 204, or an empty 200. */
function bodiless(status: number, coding: string) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': coding });
    res.end();
  };
}

describe('an answer with a Content-Encoding and no body has nothing to decode (finding s9 review-b 1)', () => {
  const dirs = useTempDirs();
  const env = (url: string) => ({
    ...dirs(),
    SVC_BASE_URL: url,
    SVC_TOKEN: 'tok_encoding_test_123456',
    SVC_TENANT: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
    SVC_MAX_RETRIES: '0',
  });

  it.each(['gzip', 'br', 'deflate', 'zstd'])(
    'an empty 200 in %s to a POST is an empty answer',
    async (coding) => {
      const t = await target(bodiless(200, coding));
      const answer = await client(t.url).request({
        method: 'POST',
        path: '/v1/x',
        body: {},
        expect: 'optional',
      });
      expect([answer.status, answer.text]).toEqual([200, '']);
    },
  );

  it('svc api HEAD -i: the status line and headers, exit 0', async () => {
    const t = await target(bodiless(200, 'gzip'));
    const r = await runInProcess(['api', 'HEAD', '/v1/me', '-i'], env(t.url));
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^HTTP 200\n(.*\n)*content-encoding: gzip\n(.*\n)*\n$/);
  });

  it('svc api DELETE answered 204 in gzip: a success, exit 0', async () => {
    const t = await target(bodiless(204, 'gzip'));
    const r = await runInProcess(['api', 'DELETE', '/v1/webhooks/wh_x', '--yes'], env(t.url));
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('logout: a revocation answered by an empty 200 in gzip revoked the session', async () => {
    const t = await target((req, res) => {
      if (req.method === 'POST' && req.url === '/v1/oauth/revoke') return bodiless(200, 'gzip')(req, res);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not_found"}');
    });
    const { SVC_CONFIG_DIR: configDir, ...rest } = dirs();
    const store = new ConfigStore(configDir);
    await store.setProfileValues('default', { base_url: t.url }); // as a login stores it
    await store.setCredential('default', {
      type: 'oauth',
      access_token: 'at-encoding',
      refresh_token: 'rt-encoding-0123456789',
      client_id: 'client-1',
      token_url: `${t.url}/v1/oauth/token`,
      obtained_at: new Date().toISOString(),
    });
    const r = await runInProcess(['logout'], {
      ...rest,
      SVC_CONFIG_DIR: configDir,
      SVC_BASE_URL: t.url,
      SVC_MAX_RETRIES: '0',
    });
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr: `✓ logged out of profile "default" (${t.url}): revoked the session at ${t.url} and removed the credential\n`,
    });
  });
});

describe('an error answer whose body svc cannot decode (finding s9 review-b 5)', () => {
  const dirs = useTempDirs();

  it('names the coding, keeps the class of the status, and never prints the compressed bytes', async () => {
    const t = await target((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
      res.end(gzipSync(JSON.stringify({ error: { code: 'x', message: 'm' } })));
    });
    const error = await client(t.url)
      .get('/v1/users/x')
      .catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe(
      'the server answered 404 with a body in Content-Encoding "zstd", which svc cannot decode',
    );
  });

  it('says a body that is not its coding is not', async () => {
    const t = await target((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end('{"error":{"code":"x","message":"m"}}');
    });
    const error = await client(t.url)
      .get('/v1/users/x')
      .catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toBe(
      'the server answered 400 with a body that is not the gzip its Content-Encoding says (incorrect header check)',
    );
  });

  it('svc me answered 500 in zstd: one line naming the coding', async () => {
    const t = await target((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
      res.end(gzipSync(JSON.stringify({ error: { code: 'x', message: 'm' } })));
    });
    const r = await runInProcess(['me'], {
      ...dirs(),
      SVC_BASE_URL: t.url,
      SVC_TOKEN: 'tok_encoding_test_123456',
      SVC_MAX_RETRIES: '0',
    });
    expect([r.code, r.stderr]).toEqual([
      1,
      'error: the server answered 500 with a body in Content-Encoding "zstd", which svc cannot decode (HTTP 500)\n',
    ]);
  });
});
