// Over 300 lines: mostly tables of exact inputs and outputs, one block per function, so a
// module's whole contract reads in one file.
// The small parts of the HTTP client (src/http): request bodies and idempotency keys, where a
// credential may travel, the --debug trace, error bodies and answers svc refuses to believe.
// Exact strings throughout: each is something a user reads or a server receives.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/api/loopback.js';
import { encodeBody } from '../../src/http/body.js';
import {
  apiErrorFrom,
  BadRequestError,
  ConflictError,
  InternalServerError,
  OutcomeUnknownError,
  parseErrorBody,
  RateLimitError,
  stillInProgress,
  UnprocessableEntityError,
} from '../../src/http/errors.js';
import { deriveIdempotencyKey, newIdempotencyKey } from '../../src/http/idempotency.js';
import { checkCredentialTransport } from '../../src/http/origin.js';
import { SecretRegistry } from '../../src/http/redact.js';
import {
  checkedBody,
  formatBytes,
  lenientJson,
  readCapped,
  redirectError,
  tooLarge,
} from '../../src/http/response.js';
import type { Headers } from '../../src/http/send.js';
import { createTracer } from '../../src/http/trace.js';

describe('encodeBody', () => {
  it.each([
    [
      'a form, without its undefined values and without a key',
      { method: 'POST', path: '/t', form: { grant_type: 'x', scope: undefined, a: 'b c' }, auth: false },
      {
        body: 'grant_type=x&a=b+c',
        contentType: 'application/x-www-form-urlencoded',
        idempotencyKey: undefined,
      },
    ],
    [
      'raw bytes as given, with the key the caller chose',
      { method: 'POST', path: '/t', raw: { data: 'x,y', contentType: 'text/csv' }, idempotencyKey: 'k1' },
      { body: 'x,y', contentType: 'text/csv', idempotencyKey: 'k1' },
    ],
    [
      'a POST without a body: the key alone',
      { method: 'POST', path: '/t' },
      { body: '{"idempotency_key":"dflt"}', contentType: 'application/json', idempotencyKey: 'dflt' },
    ],
    [
      'a GET without a body: nothing',
      { method: 'GET', path: '/t' },
      { body: undefined, contentType: undefined, idempotencyKey: undefined },
    ],
    [
      'a POST body gets the default key',
      { method: 'POST', path: '/t', body: { name: 'n' } },
      {
        body: '{"name":"n","idempotency_key":"dflt"}',
        contentType: 'application/json',
        idempotencyKey: 'dflt',
      },
    ],
    [
      'a POST body keeps its own key',
      { method: 'POST', path: '/t', body: { idempotency_key: 'own', n: 1 } },
      { body: '{"idempotency_key":"own","n":1}', contentType: 'application/json', idempotencyKey: 'own' },
    ],
    [
      'a POST body whose key is not a string is sent as given, with no key in the header (the server decides)',
      { method: 'POST', path: '/t', body: { idempotency_key: 5 } },
      { body: '{"idempotency_key":5}', contentType: 'application/json', idempotencyKey: undefined },
    ],
    [
      'a POST array is sent as it is',
      { method: 'POST', path: '/t', body: [1, 2], idempotencyKey: 'k' },
      { body: '[1,2]', contentType: 'application/json', idempotencyKey: 'k' },
    ],
    [
      'a PATCH body is sent as given; its key goes in the header only',
      { method: 'PATCH', path: '/t', body: { a: 1 } },
      { body: '{"a":1}', contentType: 'application/json', idempotencyKey: 'dflt' },
    ],
    [
      'a DELETE has no body; its key goes in the header',
      { method: 'DELETE', path: '/t' },
      { body: undefined, contentType: undefined, idempotencyKey: 'dflt' },
    ],
    [
      'a POST null body',
      { method: 'POST', path: '/t', body: null },
      { body: 'null', contentType: 'application/json', idempotencyKey: undefined },
    ],
  ] as const)('%s', (_name, options, expected) => {
    expect(encodeBody(options as Parameters<typeof encodeBody>[0], 'dflt')).toEqual(expected);
  });

  it('a POST without a body and without a default key sends nothing', () => {
    expect(encodeBody({ method: 'POST', path: '/t' }, undefined)).toEqual({
      body: undefined,
      contentType: undefined,
      idempotencyKey: undefined,
    });
  });

  it('sends a form only to an OAuth endpoint: never with the bearer token the JSON endpoints take', () => {
    expect(() => encodeBody({ method: 'POST', path: '/v1/roles', form: { name: 'r' } }, 'dflt')).toThrow(
      'a form is only for OAuth endpoints (auth: false), not /v1/roles',
    );
  });
});

describe('idempotency keys', () => {
  it('derives the same key from the same parts, and a different one when parts only join alike', () => {
    // sha256 over each part prefixed by its length, base64url, 40 characters.
    const expected = createHash('sha256').update('2:t1').update('5:row 1').digest('base64url').slice(0, 40);
    expect(deriveIdempotencyKey('t1', 'row 1')).toBe(`svc_${expected}`);
    expect(deriveIdempotencyKey('t1', 'row 1')).toBe(deriveIdempotencyKey('t1', 'row 1'));
    expect(deriveIdempotencyKey('ab', 'c')).not.toBe(deriveIdempotencyKey('a', 'bc'));
    expect(deriveIdempotencyKey('t1', 'row 1')).toMatch(/^svc_[A-Za-z0-9_-]{40}$/);
  });

  it('makes a fresh random key each time', () => {
    const key = newIdempotencyKey();
    expect(key).toMatch(/^svc_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newIdempotencyKey()).not.toBe(key);
  });
});

describe('where a credential may travel', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    // RFC 6761 says it resolves to loopback; Node asks the system resolver, which may not.
    ['api.localhost', false],
    ['[::1]', true],
    ['127.0.0.1', true],
    ['127.255.10.3', true],
    ['localhost.example.com', false],
    ['mylocalhost', false],
    ['128.0.0.1', false],
    ['127.0.0.1.nip.io', false],
    ['1127.0.0.1', false],
    ['10.0.0.1', false],
    ['[::2]', false],
  ])('isLoopbackHost(%j) is %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it('refuses plain HTTP to another host, naming it, unless allowed; https and loopback pass', () => {
    expect(() => checkCredentialTransport(new URL('https://api.example.com'), false)).not.toThrow();
    expect(() => checkCredentialTransport(new URL('http://127.0.0.1:4010'), false)).not.toThrow();
    expect(() => checkCredentialTransport(new URL('http://api.example.com'), true)).not.toThrow();
    let error: unknown;
    try {
      checkCredentialTransport(new URL('http://api.example.com/v1'), false);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      message: 'refusing to send a credential over plain HTTP to api.example.com (not a loopback address)',
      code: 'insecure_transport',
      category: 'usage',
      hint: 'use https, or pass --allow-insecure-http (SVC_ALLOW_INSECURE_HTTP=1) if you accept that anyone on the network path can read it',
    });
  });
});

describe('the --debug trace', () => {
  const trace = () => {
    const out: string[] = [];
    const secrets = new SecretRegistry();
    secrets.add('known-secret-value');
    return { out, tracer: createTracer((t) => out.push(t), secrets) };
  };

  it('shows a request curl-style, credentials masked by name and by value', () => {
    const { out, tracer } = trace();
    tracer.request(
      'POST',
      new URL('http://127.0.0.1:4010/v1/x?code=abc&page=2'),
      { authorization: 'Bearer tok_1234567890abcdef', 'x-tenant-id': 't1' },
      '{"client_secret":"s3cr3t","name":"known-secret-value"}',
      'application/json',
      1,
    );
    tracer.request('GET', new URL('http://127.0.0.1:4010/v1/x'), {}, undefined, undefined, 2);
    expect(out).toEqual([
      '* POST http://127.0.0.1:4010/v1/x?code=[redacted]&page=2\n' +
        '> authorization: Bearer [redacted]\n' +
        '> x-tenant-id: t1\n' +
        '> {"client_secret":"[redacted]","name":"[redacted]"}\n',
      '* GET http://127.0.0.1:4010/v1/x (attempt 2)\n',
    ]);
  });

  it('shows an answer with every header value, its body clipped at 4096 characters', () => {
    const { out, tracer } = trace();
    tracer.response(
      {
        status: 200,
        statusText: 'OK',
        headers: { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'], 'x-none': undefined },
        text: '{"access_token":"abc","n":1}',
      } as never,
      12.4,
    );
    tracer.response({ status: 204, statusText: 'No Content', headers: {}, text: '' } as never, 3.6);
    const long = JSON.stringify('x'.repeat(4998));
    tracer.response({ status: 500, statusText: 'Error', headers: {}, text: long } as never, 1);
    tracer.response({ status: 500, statusText: 'Error', headers: {}, text: 'token=abc' } as never, 1);
    tracer.failure('connection reset', 1500.2);
    expect(out).toEqual([
      '< 200 OK in 12 ms\n< content-type: application/json\n< set-cookie: [redacted]\n< set-cookie: [redacted]\n< {"access_token":"[redacted]","n":1}\n',
      '< 204 No Content in 4 ms\n',
      `< 500 Error in 1 ms\n< ${long.slice(0, 4096)}… (5000 bytes)\n`,
      // Text that is not JSON cannot be masked field by field: its size only.
      '< 500 Error in 1 ms\n< [9 bytes not shown: not JSON, so a secret in it could not be masked]\n',
      '! connection reset after 1500 ms; retrying\n',
    ]);
    const exact = trace();
    exact.tracer.response(
      { status: 200, statusText: 'OK', headers: {}, text: JSON.stringify('y'.repeat(4094)) } as never,
      0,
    );
    expect(exact.out[0]).toBe(`< 200 OK in 0 ms\n< "${'y'.repeat(4094)}"\n`);
  });
});

describe('error bodies', () => {
  it.each([
    ['nested type as code', '{"error":{"type":"invalid","message":"m"}}', { code: 'invalid', message: 'm' }],
    ['top-level type last', '{"type":"urn:x","title":"T"}', { code: 'urn:x', message: 'T' }],
    [
      'errors[0] code',
      '{"errors":[{"code":"c1","message":"first"},{"message":"second"}]}',
      {
        code: 'c1',
        message: 'first',
        details: [{ code: 'c1', message: 'first' }, { message: 'second' }],
      },
    ],
    ['empty strings do not count', '{"error":{"code":"","message":""},"message":"m2"}', { message: 'm2' }],
    ['request id at the top', '{"message":"m","request_id":"req_t"}', { message: 'm', requestId: 'req_t' }],
    [
      'requestId spelled in camel case',
      '{"message":"m","requestId":"req_c"}',
      { message: 'm', requestId: 'req_c' },
    ],
    [
      'details nested',
      '{"error":{"message":"m","details":[{"field":"f"}]}}',
      { message: 'm', details: [{ field: 'f' }] },
    ],
    ['details at the top', '{"message":"m","details":{"a":1}}', { message: 'm', details: { a: 1 } }],
    ['errors as details', '{"errors":[{"message":"e"}]}', { message: 'e', details: [{ message: 'e' }] }],
    ['plain text', '  upstream   timed\nout  ', { message: 'upstream timed out' }],
    ['whitespace only', '   ', { message: '418 Teapot' }],
  ])('%s', (_name, text, expected) => {
    const { body: _body, ...parsed } = parseErrorBody(418, 'Teapot', text);
    expect(parsed).toEqual(expected);
  });

  it('keeps the parsed body (or the text), and no status text gives the bare status', () => {
    expect(parseErrorBody(500, '', '').body).toBeUndefined();
    expect(parseErrorBody(500, '', '').message).toBe('500');
    expect(parseErrorBody(500, '', '{"a":1}').body).toEqual({ a: 1 });
    expect(parseErrorBody(500, '', 'oops').body).toBe('oops');
  });

  it('cuts a long text body at 200 characters', () => {
    expect(parseErrorBody(502, 'Bad Gateway', 'a'.repeat(200)).message).toBe('a'.repeat(200));
    expect(parseErrorBody(502, 'Bad Gateway', `<p>${'b'.repeat(250)}</p>`).message).toBe(
      `${'b'.repeat(200)}…`,
    );
  });

  it.each([
    [400, BadRequestError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [599, InternalServerError],
  ])('status %i is a %o', (status, type) => {
    expect(apiErrorFrom(status, '', {}, '')).toBeInstanceOf(type);
  });

  it('an unlisted 4xx is a plain ApiError carrying status, headers and the header request id', () => {
    const error = apiErrorFrom(418, 'Teapot', { 'x-request-id': ['a', 'b'] }, '{"message":"short"}');
    expect(error.constructor.name).toBe('ApiError');
    expect(error).toMatchObject({
      status: 418,
      message: 'short',
      requestId: undefined,
      body: { message: 'short' },
    });
    expect(error.headers).toEqual({ 'x-request-id': ['a', 'b'] });
    const withId = apiErrorFrom(
      404,
      '',
      { 'x-request-id': 'req_h' },
      '{"error":{"message":"m","request_id":"req_b"}}',
    );
    expect(withId.requestId).toBe('req_b');
  });

  it('stillInProgress says how long svc waited and for which key', () => {
    const first = apiErrorFrom(
      409,
      'Conflict',
      { 'x-request-id': 'req_1' },
      '{"error":{"code":"idempotency_request_in_progress","message":"busy"}}',
    );
    const error = stillInProgress(first, 'svc_k1', 61_600);
    // Not a refusal: the earlier attempt may yet make the change (attack18b #11).
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.answer).toBeInstanceOf(ConflictError);
    expect(error.answer).toMatchObject({
      status: 409,
      code: 'idempotency_request_in_progress',
      requestId: 'req_1',
    });
    expect(error).toMatchObject({
      code: 'idempotency_request_in_progress',
      key: 'svc_k1',
      message:
        'the server is still working on this request (idempotency key svc_k1) after svc waited 62 s for it; it may still complete, so the outcome is unknown: the platform may have made this change',
      hint: 'the platform is still processing it: check whether it was made before running the command again',
    });
    expect(stillInProgress(first, undefined, 400).message).toBe(
      'the server is still working on this request after svc waited 0 s for it; it may still complete, so the outcome is unknown: the platform may have made this change',
    );
  });
});

describe('answers svc does not believe', () => {
  const url = new URL('http://127.0.0.1:4010/v1/roles?x=1');

  it.each([
    [0, '0 bytes'],
    [1023, '1023 bytes'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [64 * 1024 * 1024, '64 MiB'],
    [3 * 1024 ** 3, '3 GiB'],
    [2 * 1024 ** 4, '2048 GiB'],
  ])('formatBytes(%i) is %j', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it('tooLarge names the request and the limit', () => {
    expect(tooLarge('GET', url, 1024)).toMatchObject({
      message: 'the answer to GET /v1/roles is larger than 1 KiB; svc stopped reading it',
      code: 'response_too_large',
      hint: 'raise the limit with SVC_MAX_RESPONSE_BYTES (in bytes) if this answer is expected to be that large',
    });
  });

  // attack27b F8: a limit the user set (SVC_MAX_RESPONSE_BYTES=2047) was said "2 KiB".
  it.each([
    [2047, '2,047 bytes'],
    [1049, '1,049 bytes'],
    [1048575, '1,048,575 bytes'],
    [2048, '2 KiB'],
    [64 * 1024 * 1024, '64 MiB'],
  ])('tooLarge says the limit %i exactly', (limit, said) => {
    expect(tooLarge('GET', url, limit).message).toBe(
      `the answer to GET /v1/roles is larger than ${said}; svc stopped reading it`,
    );
  });

  it('formatBytes never rounds up to the next unit: 1048575 is not "1024 KiB"', () => {
    expect(formatBytes(1048575)).toBe('1023.9 KiB');
  });

  it('readCapped reads up to the limit exactly and counts the bytes', async () => {
    async function* chunks() {
      yield Buffer.from('ab');
      yield new Uint8Array([99, 100]);
    }
    const progress = { bytes: 0 };
    expect(await readCapped(chunks(), 4, () => new Error('too large'), progress)).toBe('abcd');
    expect(progress.bytes).toBe(4);
    await expect(readCapped(chunks(), 3, () => new Error('too large'), { bytes: 0 })).rejects.toThrow(
      'too large',
    );
  });

  it.each([
    [299, {}, undefined],
    [400, { location: 'https://x' }, undefined],
    [
      302,
      { location: 'https://login.example.com/sso' },
      {
        message:
          'the server answered 302 (a redirect to login.example.com) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: 'if https://login.example.com is the API, use it as the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`)',
      },
    ],
    [
      301,
      { location: ['/v2/roles', '/v3'] },
      {
        message:
          'the server answered 301 (a redirect to /v2/roles on the same server) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: "if the API is under another path on this server, put that prefix (not the path of one request) in the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`); otherwise report the redirect to the server's operator",
      },
    ],
    [
      // review16 R10: the whole redirected path was named as the base URL's; the prefix is.
      302,
      { location: '/api/v1/roles;jsessionid=ABCDEF1234567890SECRET' },
      {
        message:
          'the server answered 302 (a redirect to /api/v1/roles on the same server) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: "if the API is under /api on this server, use http://127.0.0.1:4010/api as the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`); otherwise report the redirect to the server's operator",
      },
    ],
    [
      307,
      { location: '/v1/roles?redirected=1&token=x' },
      {
        message:
          'the server answered 307 (a redirect to /v1/roles on the same server) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: "the server sends this path back to itself: report the redirect to the server's operator",
      },
    ],
    [
      // A servlet container's URL-rewritten session (review15 R15-3): left out, as the query is.
      307,
      { location: '/v2;jsessionid=SESS_SECRET_4/roles;v=2?token=x' },
      {
        message:
          'the server answered 307 (a redirect to /v2/roles on the same server) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: "if the API is under another path on this server, put that prefix (not the path of one request) in the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`); otherwise report the redirect to the server's operator",
      },
    ],
    [
      302,
      { location: '/v1/roles;jsessionid=SESS_SECRET_4' },
      {
        message:
          'the server answered 302 (a redirect to /v1/roles on the same server) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: "the server sends this path back to itself: report the redirect to the server's operator",
      },
    ],
    [
      308,
      { location: 'http://127.0.0.1:4011/v1/roles' },
      {
        message:
          'the server answered 308 (a redirect to 127.0.0.1:4011) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: 'if http://127.0.0.1:4011 is the API, use it as the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`)',
      },
    ],
    [
      307,
      { location: 'http://[bad' },
      {
        message:
          'the server answered 307 (a redirect without a usable Location) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: 'check the base URL',
      },
    ],
    [
      300,
      {},
      {
        message:
          'the server answered 300 (a redirect without a usable Location) to GET /v1/roles; svc never follows redirects, so nothing was sent there',
        hint: 'check the base URL',
      },
    ],
  ])('redirectError for %i %j', (status, headers, expected) => {
    const error = redirectError('GET', url, status, headers, 'http://127.0.0.1:4010');
    if (expected === undefined) expect(error).toBeUndefined();
    else expect(error).toMatchObject({ ...expected, code: 'bad_response' });
  });

  // review16e E5: a prefix masked as a credential was offered as a base URL ("…/[redacted]").
  it.each(['/AbCdEf1234567890XyZabcQ/v1/roles', '/hooks/Xz7kP2mQ9rL4tW8vN3bC/v1/roles'])(
    'redirectError to %s: the rule in general, never a masked base URL',
    (location) => {
      const hint = redirectError('GET', url, 302, { location }, 'http://127.0.0.1:4010')?.hint;
      expect(hint).toBe(
        "if the API is under another path on this server, put that prefix (not the path of one request) in the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`); otherwise report the redirect to the server's operator",
      );
    },
  );

  it('redirectError under a base path: the prefix replaces the base path, not the request path', () => {
    const under = new URL('http://127.0.0.1:4010/gw/v1/tenants');
    const redirect = (location: string) =>
      redirectError('GET', under, 301, { location }, 'http://127.0.0.1:4010/gw/')?.hint;
    expect(redirect('/gateway/v1/tenants')).toBe(
      "if the API is under /gateway on this server, use http://127.0.0.1:4010/gateway as the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`); otherwise report the redirect to the server's operator",
    );
    expect(redirect('/v1/tenants')).toBe(
      "if the API is under / on this server, use http://127.0.0.1:4010 as the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`); otherwise report the redirect to the server's operator",
    );
    expect(redirect('/gw/v1/tenants/')).toMatch(/^if the API is under another path on this server/);
  });

  const SAFE_HINT = 'is the base URL the API, not a web page or a proxy?';
  const UNSAFE = '; nothing was written, and svc cannot tell whether the change was made';
  it.each([
    ['GET', 200, {}, '', 'json', `the server answered 200 with an empty body, to GET /v1/roles`],
    ['POST', 201, {}, '', 'json', `the server answered 201 with an empty body, to POST /v1/roles${UNSAFE}`],
    [
      'GET',
      200,
      { 'content-type': 'text/html; charset=utf-8' },
      '<p>',
      'json',
      'the server answered 200 with text/html, not JSON, to GET /v1/roles',
    ],
    [
      'HEAD',
      200,
      {},
      'nope',
      'json',
      'the server answered 200 with a body that is not JSON, to HEAD /v1/roles',
    ],
    [
      'OPTIONS',
      200,
      { 'content-type': 'application/json' },
      '{"a":',
      'json',
      'the server answered 200 with JSON that is cut off or malformed (5 bytes), to OPTIONS /v1/roles',
    ],
    [
      'GET',
      200,
      {},
      'null',
      'optional',
      'the server answered 200 with JSON null, not a document, to GET /v1/roles',
    ],
    [
      'GET',
      200,
      {},
      '"s"',
      'json',
      'the server answered 200 with a JSON string, not a document, to GET /v1/roles',
    ],
    [
      'GET',
      200,
      {},
      '12',
      'json',
      'the server answered 200 with a JSON number, not a document, to GET /v1/roles',
    ],
  ] as const)('checkedBody refuses %s %i %j %j', (method, status, headers, text, expect_, message) => {
    let error: unknown;
    try {
      checkedBody(method, url, status, headers, text, expect_);
    } catch (e) {
      error = e;
    }
    const safe = method !== 'POST';
    expect(error).toMatchObject({
      message,
      code: 'bad_response',
      hint: safe ? SAFE_HINT : `check before trying again (${SAFE_HINT})`,
    });
  });

  it.each([
    [204, {}, 'ignored', 'json', undefined],
    [205, {}, '', 'json', undefined],
    [200, {}, '', 'optional', undefined],
    [200, {}, 'not json', 'raw', 'not json'],
    [200, {}, '{"a":1}', 'raw', { a: 1 }],
    [200, {}, '', 'raw', undefined],
    [200, { 'content-type': 'application/problem+json' }, '[1]', 'json', [1]],
    [200, { 'content-type': 'text/json' }, '{}', 'json', {}],
    [200, { 'content-type': ['application/json', 'text/html'] }, '{}', 'json', {}],
    [200, { 'content-type': ' ; charset=utf-8' }, '{"b":2}', 'json', { b: 2 }],
  ] as const)('checkedBody accepts %i %j %j as %s', (status, headers, text, expect_, value) => {
    expect(checkedBody('GET', url, status, headers as Headers, text, expect_)).toEqual(value);
  });

  it('checkedBody: a DELETE answered 200 with no bytes (or white space) is one without a body (review19d F3)', () => {
    for (const text of ['', ' \n'])
      expect(
        checkedBody('DELETE', url, 200, { 'content-type': 'application/json' }, text, 'json'),
      ).toBeUndefined();
    // Any other method's empty 2xx is still no document.
    expect(() => checkedBody('PATCH', url, 200, {}, '', 'json')).toThrow(/with an empty body/);
  });

  it('lenientJson: JSON when it parses, the text otherwise, nothing for nothing', () => {
    expect(lenientJson('')).toBeUndefined();
    expect(lenientJson('[1]')).toEqual([1]);
    expect(lenientJson('{x')).toBe('{x');
  });
});
