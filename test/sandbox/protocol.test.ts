import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// HTTP itself, as docs/openapi.json describes it (x-error-codes, x-svc-choices): media types,
// errors the framework raises before any route runs, and methods a path does not have.
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
