import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// Bodies and settings that broke the sandbox (issue 10), one test each.
const sandbox = useSandbox();
const TREASURY = tenantId('acme-treasury');
let keys = 0;
const key = () => `robust-${++keys}`;
const admin = () => ({ token: sandbox().issueToken('usr_admin').token, tenant: TREASURY });

/** `[[[…]]]` or `{"a":{"a":…}}` nested `depth` levels, as text (JSON.stringify would recurse). */
function nested(kind: 'array' | 'object', depth: number): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

async function raw(method: string, path: string, body: string, contentType = 'application/json') {
  const response = await fetch(`${sandbox().url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${admin().token}`,
      'x-tenant-id': TREASURY,
      'content-type': contentType,
    },
    body,
  });
  return { status: response.status, body: JSON.parse(await response.text()) };
}

describe('body depth and size', () => {
  it.each([
    ['a 3,000-deep object', 'object' as const, 3_000],
    ['a 100,000-deep array', 'array' as const, 100_000],
  ])('refuses %s in a POST with 400 body_too_deep', async (_name, kind, depth) => {
    const body = `{"name":"deep","idempotency_key":"${key()}","data":${nested(kind, depth)}}`;
    const r = await raw('POST', '/v1/reconciliations', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      code: 'body_too_deep',
      message: 'the JSON body nests deeper than 64 levels',
    });
  });

  it('refuses a PATCH with 5,000-deep arrays, and the surface still lists and reads', async () => {
    const created = await call(sandbox(), 'POST', '/v1/reconciliations', {
      ...admin(),
      body: { name: 'shallow', idempotency_key: key() },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    for (const type of ['application/json', 'application/merge-patch+json']) {
      const r = await raw('PATCH', `/v1/reconciliations/${id}`, `{"rows":${nested('array', 5_000)}}`, type);
      expect([r.status, r.body.error.code]).toEqual([400, 'body_too_deep']);
    }
    expect((await call(sandbox(), 'GET', `/v1/reconciliations/${id}`, admin())).status).toBe(200);
    expect((await call(sandbox(), 'GET', '/v1/reconciliations', admin())).status).toBe(200);
  });

  it('accepts 64 levels', async () => {
    const r = await raw(
      'POST',
      '/v1/reconciliations',
      `{"idempotency_key":"${key()}","data":${nested('object', 62)}}`,
    );
    expect(r.status).toBe(201);
  });

  // s11 H1: the platform keeps numbers as doubles; one it cannot store as written is refused,
  // never stored as another number (or, for 1e400, as null).
  it.each([
    ['9007199254740993', 'has more digits than the platform stores (it would be 9007199254740992)'],
    ['1e400', 'is beyond the range of the numbers the platform stores'],
    ['1.0000000000000001', 'has more digits than the platform stores (it would be 1)'],
    ['-0.0e5', 'is a zero with a sign, which the platform stores without it (it would be 0)'],
    // attack27b F5: it has no sign; it is too small (it was "a zero with a sign").
    ['2e-324', 'is too small for the numbers the platform stores (it would be 0)'],
    ['-0.1e-400', 'is too small for the numbers the platform stores (it would be 0)'],
  ])(
    'refuses the number %s with 400 invalid_request naming its field, and stores nothing',
    async (n, why) => {
      const k = key();
      const r = await raw(
        'POST',
        '/v1/reconciliations',
        `{"idempotency_key":"${k}","lines":[{"amount":${n}}]}`,
      );
      expect([r.status, r.body.error.code, r.body.error.message, r.body.error.details]).toEqual([
        400,
        'invalid_request',
        `lines[0].amount is ${n}, which ${why}; send it as a string`,
        [{ field: 'lines[0].amount', message: `${why}; send it as a string` }],
      ]);
      const exact = await raw(
        'POST',
        '/v1/reconciliations',
        `{"idempotency_key":"${key()}","amount":1.10,"top":9007199254740992}`,
      );
      expect([exact.status, exact.body.amount, exact.body.top]).toEqual([201, 1.1, 9007199254740992]);
    },
  );

  // s11 operator M3: a key given twice is read as the last by this platform and as the first by
  // other parsers; refused, never stored as one of them (a role named by its second "name").
  it.each([
    ['/v1/roles', '"name":"dup-a","name":"dup-b","permissions":["role.read"]', 'name'],
    ['/v1/reconciliations', '"lines":[{"amount":1,"amount":2}]', 'lines[0].amount'],
    ['/v1/reconciliations', '"meta":{"idempotency_key":1},"meta":{}', 'meta'],
  ])(
    'refuses a key given twice in a POST to %s with 400 naming it, and stores nothing',
    async (path, members, field) => {
      const before = (await call(sandbox(), 'GET', path, admin())).body.items.length;
      const r = await raw('POST', path, `{"idempotency_key":"${key()}",${members}}`);
      expect([r.status, r.body.error.code, r.body.error.message, r.body.error.details]).toEqual([
        400,
        'invalid_request',
        `${field} is given twice; send it once`,
        [{ field, message: 'is given twice; send it once' }],
      ]);
      expect((await call(sandbox(), 'GET', path, admin())).body.items.length).toBe(before);
    },
  );

  it('answers a body over 1 MiB with 413 payload_too_large in the error shape', async () => {
    const r = await raw(
      'POST',
      '/v1/reconciliations',
      `{"idempotency_key":"${key()}","pad":"${'x'.repeat(1024 * 1024)}"}`,
    );
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({
      code: 'payload_too_large',
      request_id: expect.stringMatching(/^req_/),
    });
  });
});

describe('record fields', () => {
  it('never stores idempotency_key sent with a PATCH as record data', async () => {
    const created = await call(sandbox(), 'POST', '/v1/reconciliations', {
      ...admin(),
      body: { name: 'k', idempotency_key: key() },
    });
    const patched = await call(sandbox(), 'PATCH', `/v1/reconciliations/${created.body.id}`, {
      ...admin(),
      body: { status: 'open', idempotency_key: 'patch-key' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).not.toHaveProperty('idempotency_key');
    const read = await call(sandbox(), 'GET', `/v1/reconciliations/${created.body.id}`, admin());
    expect(read.body).not.toHaveProperty('idempotency_key');
    expect(read.body.status).toBe('open');
  });
});

describe('justifications', () => {
  it.each([
    ['a plus nine spaces', `a${' '.repeat(9)}`],
    ['ten spaces', ' '.repeat(10)],
    ['padding around a short word', '   short   '],
  ])('refuses a service-role key justified by %s', async (_name, justification) => {
    const r = await call(sandbox(), 'POST', `/v1/tenants/${TREASURY}/api-keys`, {
      token: admin().token,
      body: { kind: 'service_role', justification, idempotency_key: key() },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('justification_required');
    expect(r.body.error.details).toEqual([
      { field: 'justification', message: 'needs at least 10 characters besides surrounding spaces' },
    ]);
  });
});

describe('fault injection settings', () => {
  it('sends no Retry-After at all when retry_after is null', async () => {
    const set = await call(sandbox(), 'PUT', '/_sandbox/faults', {
      body: { retry_after: null, fail_rate: 1, phase: 'before' },
    });
    expect(set.body.retry_after).toBeNull();
    try {
      const r = await call(sandbox(), 'GET', '/v1/reconciliations', admin());
      expect(r.status).toBe(503);
      expect(r.headers.has('retry-after')).toBe(false);
    } finally {
      await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { retry_after: '1', fail_rate: 0 } });
    }
  });

  // conform16 #4: every injected failure said service_unavailable (503's code) whatever its
  // status, and a lost GET answer said "the change was applied".
  it.each([
    ['before', 500, 'GET', 'internal_error', 'injected fault: internal error'],
    ['before', 503, 'GET', 'service_unavailable', 'injected fault: service unavailable'],
    ['after', 500, 'GET', 'internal_error', 'injected fault: the request was handled, the answer lost'],
    ['after', 502, 'POST', 'internal_error', 'injected fault: the change was applied, the answer lost'],
    ['after', 503, 'POST', 'service_unavailable', 'injected fault: the change was applied, the answer lost'],
  ])(
    'phase %s, fail_status %i, %s: answers the code of that status, and says what happened',
    async (phase, status, method, code, message) => {
      await call(sandbox(), 'PUT', '/_sandbox/faults', {
        body: { fail_rate: 1, fail_status: status, phase },
      });
      try {
        const r =
          method === 'GET'
            ? await call(sandbox(), 'GET', '/v1/reconciliations', admin())
            : await call(sandbox(), 'POST', '/v1/reconciliations', {
                ...admin(),
                body: { name: 'fault', idempotency_key: `fault-${status}` },
              });
        expect([r.status, r.body.error.code, r.body.error.message]).toEqual([status, code, message]);
      } finally {
        await call(sandbox(), 'PUT', '/_sandbox/faults', {
          body: { fail_rate: 0, fail_status: 503, phase: 'both' },
        });
      }
    },
  );

  it('a write the handler refused is not "the change was applied"', async () => {
    await call(sandbox(), 'PUT', '/_sandbox/faults', {
      body: { fail_rate: 1, fail_status: 503, phase: 'after' },
    });
    try {
      const r = await call(sandbox(), 'DELETE', '/v1/reconciliations/rec_nosuch', admin());
      expect(r.body.error.message).toBe('injected fault: the request was handled, the answer lost');
    } finally {
      await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0, phase: 'both' } });
    }
  });

  it.each(['', 'soon', '-3'])('refuses retry_after %j (seconds or an HTTP date)', async (value) => {
    const r = await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { retry_after: value } });
    expect(r.status).toBe(400);
  });
});

// Exploratory test s8 (attacker 5): valid JSON with a __proto__ (or constructor.prototype) key
// was refused as "Body is not valid JSON". Still refused, saying which key and what to do.
describe('prototype keys in a JSON body', () => {
  it.each([
    [
      '{"name":"pp","permissions":["exception.read"],"__proto__":{}}',
      '__proto__',
      'the body has a __proto__ key, which the platform refuses (it could poison object prototypes); remove it',
    ],
    [
      '{"name":"pp","permissions":["exception.read"],"description":"x","meta":[{"constructor":{"prototype":{"x":1}}}]}',
      'meta[0].constructor.prototype',
      'the body has a constructor.prototype key at meta[0], which the platform refuses (it could poison object prototypes); remove it',
    ],
  ])('refuses %s with 400 invalid_request naming the key', async (body, field, message) => {
    for (const type of ['application/json', 'application/merge-patch+json']) {
      const r = await raw('POST', '/v1/roles', body, type);
      expect([r.status, r.body.error.code, r.body.error.message, r.body.error.details]).toEqual([
        400,
        'invalid_request',
        message,
        [{ field, message: 'is not accepted; remove it' }],
      ]);
    }
  });

  it('still calls text that is not JSON not valid JSON', async () => {
    const r = await raw('POST', '/v1/roles', '{"name":');
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
    expect(r.body.error.message).toContain('not valid JSON');
  });
});

describe('a missing field', () => {
  it('is named once, as a sentence: "permissions is required" (docs12 3)', async () => {
    const r = await raw('POST', '/v1/roles', JSON.stringify({ name: 'ops', idempotency_key: key() }));
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('permissions is required');
    expect(r.body.error.details).toEqual([{ field: 'permissions', message: 'is required' }]);
  });
});
