import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// HTTP itself, as docs/openapi.json describes it (x-error-codes, x-svc-choices): media types,
// errors the framework raises before any route runs, and methods a path does not have. Past 300
// lines: one sandbox and one raw-socket helper serve every case of the protocol layer.
const sandbox = useSandbox();
const TREASURY = tenantId('acme-treasury');
let keys = 0;
const key = () => `protocol-${++keys}`;
const admin = () => ({ token: sandbox().adminToken, tenant: TREASURY });

type Answer = Awaited<ReturnType<typeof call>>;

/** The documented error answer, exactly: status, X-Request-Id, JSON, and the body repeating the id. */
function expectProblem(r: Answer, status: number, code: string, message: string) {
  const requestId = r.headers.get('x-request-id');
  expect(requestId).toMatch(/^req_[0-9a-f]{20}$/);
  expect([r.status, r.headers.get('content-type')]).toEqual([status, 'application/json; charset=utf-8']);
  expect(r.body).toEqual({ error: { code, message, request_id: requestId } });
}

async function roleNames(): Promise<string[]> {
  const r = await call(sandbox(), 'GET', '/v1/roles?kind=custom', admin());
  return r.body.items.map((role: { name: string }) => role.name);
}

describe('media types: JSON endpoints take JSON only', () => {
  const form = 'application/x-www-form-urlencoded';

  it('refuses a form-encoded role with 415 unsupported_media_type, and creates nothing', async () => {
    const r = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      text: `name=formrole&permissions=exception.read&idempotency_key=${key()}`,
      headers: { 'content-type': form },
    });
    expectProblem(
      r,
      415,
      'unsupported_media_type',
      `the body must be application/json or application/merge-patch+json, not ${form}`,
    );
    expect(await roleNames()).not.toContain('formrole');
  });

  it.each([
    ['POST', '/v1/roles', 'text/plain'],
    ['POST', '/v1/roles', 'text/plain; charset=utf-8'],
    ['POST', '/v1/webhooks', form],
    ['POST', '/v1/reconciliations', 'application/xml'],
    ['POST', '/v1/reconciliations', 'application/jsonx'],
    ['PATCH', '/v1/roles/role_x', 'text/plain'],
    ['DELETE', '/v1/roles/role_x', 'text/plain'],
    ['PUT', '/_sandbox/faults', form],
  ])(
    'answers %s %s with a JSON body labelled %s with 415, before the idempotency check',
    async (method, path, type) => {
      const r = await call(sandbox(), method, path, {
        ...admin(),
        text: JSON.stringify({ name: 'typed', permissions: ['exception.read'] }),
        headers: { 'content-type': type },
      });
      expectProblem(
        r,
        415,
        'unsupported_media_type',
        `the body must be application/json or application/merge-patch+json, not ${type.split(';')[0]}`,
      );
    },
  );

  it('refuses a body without a content type with 415', async () => {
    const r = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      text: 'x',
      headers: { 'content-type': '' },
    });
    expectProblem(
      r,
      415,
      'unsupported_media_type',
      'the body must be application/json or application/merge-patch+json, not (none)',
    );
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/merge-patch+json',
  ])('takes a body labelled %s', async (type) => {
    const name = `typed-${key()}`;
    const r = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      text: JSON.stringify({ name, permissions: ['exception.read'], idempotency_key: key() }),
      headers: { 'content-type': type },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.name).toBe(name);
  });

  it('authenticates before it looks at the body', async () => {
    const r = await call(sandbox(), 'POST', '/v1/roles', {
      tenant: TREASURY,
      text: 'name=x',
      headers: { 'content-type': form },
    });
    expectProblem(r, 401, 'unauthenticated', 'send a credential in Authorization: Bearer <token>');
  });

  it('still takes forms at the OAuth endpoints the reference says are form-encoded', async () => {
    const r = await call(sandbox(), 'POST', '/v1/oauth/token', {
      text: 'grant_type=client_credentials&client_id=nobody',
      headers: { 'content-type': form },
    });
    expect([r.status, r.body.error]).toEqual([400, 'unsupported_grant_type']);
  });
});

/** One request written to the socket as given, and the answer as the socket read it. */
async function rawExchange(request: string): Promise<Answer> {
  const { port, hostname } = new URL(sandbox().url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.end(request);
  });
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Headers(lines.map((line) => line.split(/:\s*/, 2) as [string, string]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body), text: body };
}

describe('errors the framework raises come in the documented shape, with X-Request-Id', () => {
  const long = 'a'.repeat(101);

  it.each(['GET', 'DELETE'])('answers %s of an id over 100 characters with 404 not_found', async (method) => {
    const r = await call(sandbox(), method, `/v1/roles/${long}`, admin());
    expectProblem(
      r,
      404,
      'not_found',
      `no route ${method} /v1/roles/${long}: a path segment is longer than 100 characters, longer than any id`,
    );
  });

  it.each(['/v1/roles/%zz', '/v1/users/%E0%A4%A/roles'])(
    'answers a path that is not valid percent-encoding (%s) with 400 invalid_request',
    async (path) => {
      const r = await call(sandbox(), 'GET', path, admin());
      expectProblem(r, 400, 'invalid_request', `the path ${path} is not valid percent-encoding`);
    },
  );

  it.each([
    [
      'malformed JSON',
      '{"name":',
      400,
      'invalid_request',
      "Body is not valid JSON but content-type is set to 'application/json'",
    ],
    [
      'an empty JSON body',
      '',
      400,
      'invalid_request',
      "Body cannot be empty when content-type is set to 'application/json'",
    ],
  ])('answers %s in the shape', async (_name, text, status, code, message) => {
    const r = await call(sandbox(), 'POST', '/v1/roles', {
      ...admin(),
      text,
      headers: { 'content-type': 'application/json', 'content-length': String(text.length) },
    });
    expectProblem(r, status, code, message);
  });

  it('answers a request that is not valid HTTP with 400 invalid_request', async () => {
    const r = await rawExchange('GET /v1/me HTTP/1.1\r\nHost: localhost\r\nNot a header\r\n\r\n');
    expect(r.headers.get('connection')).toBe('close');
    expectProblem(r, 400, 'invalid_request', 'the request is not valid HTTP/1.1');
  });

  it('answers headers over 16 KiB with 431 headers_too_large', async () => {
    const r = await rawExchange(
      `GET /v1/me HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${'p'.repeat(17_000)}\r\n\r\n`,
    );
    expectProblem(r, 431, 'headers_too_large', 'the request headers are larger than 16 KiB');
  });
});

describe('methods: a method a path does not have is 405 with Allow', () => {
  it.each([
    ['PUT', '/v1/roles', 'GET, HEAD, POST'],
    ['DELETE', '/v1/me', 'GET, HEAD'],
    ['PUT', '/v1/roles/role_x', 'GET, HEAD, PATCH, DELETE'],
    ['POST', '/v1/audit_trail', 'GET, HEAD'],
    ['PUT', '/v1/audit_trail', 'GET, HEAD'],
    ['PATCH', '/v1/audit_trail/aud_x', 'GET, HEAD'],
    ['OPTIONS', '/v1/roles', 'GET, HEAD, POST'],
    ['PROPFIND', '/v1/me', 'GET, HEAD'],
    ['GET', '/v1/oauth/token', 'POST'],
    ['DELETE', '/_sandbox/faults', 'GET, HEAD, PUT'],
  ])('answers %s %s with 405 method_not_allowed, Allow: %s', async (method, path, allow) => {
    const r = await call(sandbox(), method, path, admin());
    expect(r.headers.get('allow')).toBe(allow);
    expectProblem(r, 405, 'method_not_allowed', `${method} is not allowed on ${path}; it allows ${allow}`);
  });

  it.each([
    ['a JSON body without an idempotency key', '{}', 'application/json'],
    ['malformed JSON', '{"name":', 'application/json'],
    ['a form', 'name=x', 'application/x-www-form-urlencoded'],
  ])('answers POST /v1/me with %s with 405 before any body check', async (_name, text, type) => {
    const r = await call(sandbox(), 'POST', '/v1/me', {
      ...admin(),
      text,
      headers: { 'content-type': type },
    });
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expectProblem(r, 405, 'method_not_allowed', 'POST is not allowed on /v1/me; it allows GET, HEAD');
  });

  it('answers 405 without credentials too: the document already says which methods a path has', async () => {
    const r = await call(sandbox(), 'PUT', '/v1/roles');
    expectProblem(r, 405, 'method_not_allowed', 'PUT is not allowed on /v1/roles; it allows GET, HEAD, POST');
  });

  it.each(['PUT', 'OPTIONS'])('answers %s of a path no method has with 404', async (method) => {
    const r = await call(sandbox(), method, '/v1/ledgers', admin());
    expect(r.headers.has('allow')).toBe(false);
    expectProblem(r, 404, 'not_found', `no route ${method} /v1/ledgers`);
  });

  it('answers HEAD wherever GET is, with the headers of the GET and no body', async () => {
    const [get, head] = [
      await call(sandbox(), 'GET', '/v1/me', admin()),
      await call(sandbox(), 'HEAD', '/v1/me', admin()),
    ];
    expect([head.status, head.text]).toEqual([200, '']);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('x-request-id')).toMatch(/^req_/);
    const refused = await call(sandbox(), 'HEAD', '/v1/me');
    expect([refused.status, refused.text]).toEqual([401, '']);
  });
});

describe('a header the platform reads once, given twice, is refused (400), not joined', () => {
  const request = (lines: string[], method = 'GET', path = '/v1/roles') =>
    rawExchange(
      `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${lines.join('\r\n')}\r\n\r\n`,
    );
  const bearer = () => `Authorization: Bearer ${sandbox().adminToken}`;

  it.each([
    [
      'X-Tenant-Id',
      'the same tenant twice',
      () => [bearer(), `X-Tenant-Id: ${TREASURY}`, `X-Tenant-Id: ${TREASURY}`],
    ],
    [
      'X-Tenant-Id',
      'two tenants, in two spellings',
      () => [bearer(), `x-tenant-id: ${TREASURY}`, `X-TENANT-ID: ${tenantId('acme-payments-eu')}`],
    ],
    ['Authorization', 'two credentials', () => [bearer(), bearer(), `X-Tenant-Id: ${TREASURY}`]],
    ['Host', 'a second host', () => [bearer(), `X-Tenant-Id: ${TREASURY}`, 'Host: elsewhere.example']],
    [
      'X-SVC-Org-Id',
      'two organisations',
      () => [bearer(), `X-Tenant-Id: ${TREASURY}`, 'X-SVC-Org-Id: org_a', 'X-SVC-Org-Id: org_b'],
    ],
  ])(
    'answers %s given twice (%s) with 400 naming it, and logs no security event',
    async (name, _what, lines) => {
      const before = sandbox().state.securityEvents.length;
      const r = await request(lines());
      expectProblem(r, 400, 'invalid_request', `the ${name} header is given more than once; send it once`);
      expect(sandbox().state.securityEvents.length).toBe(before);
    },
  );

  it.each([
    ['Idempotency-Key', ['Idempotency-Key: k-1', 'Idempotency-Key: k-2', 'Content-Type: application/json']],
    ['Content-Type', ['Content-Type: application/json', 'Content-Type: application/json']],
  ])('refuses a change with %s twice, and makes nothing', async (name, lines) => {
    const body = JSON.stringify({
      name: `twice-${name}`,
      permissions: ['exception.read'],
      idempotency_key: key(),
    });
    const r = await rawExchange(
      `POST /v1/roles HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer ${sandbox().adminToken}\r\n` +
        `X-Tenant-Id: ${TREASURY}\r\n${lines.join('\r\n')}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expectProblem(r, 400, 'invalid_request', `the ${name} header is given more than once; send it once`);
    expect(await roleNames()).not.toContain(`twice-${name}`);
  });

  it('takes a header that may repeat (Accept) twice', async () => {
    const r = await request([
      bearer(),
      `X-Tenant-Id: ${TREASURY}`,
      'Accept: application/json',
      'Accept: */*',
    ]);
    expect(r.status).toBe(200);
  });
});
