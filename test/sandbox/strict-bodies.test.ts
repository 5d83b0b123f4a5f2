import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// JSON bodies are read as written: no type is converted into another (a blank expiry never
// becomes "permanent", a null never turns PKCE off), bytes that are not UTF-8 are refused rather
// than stored as U+FFFD, and a leap second or an oversized body is refused with the truth.
const sandbox = useSandbox();
const TREASURY = tenantId('acme-treasury');
let keys = 0;
const key = () => `strict-${++keys}`;
const admin = () => ({ token: sandbox().adminToken, tenant: TREASURY });

async function newClient(): Promise<string> {
  const r = await call(sandbox(), 'POST', '/v1/oauth/clients', {
    ...admin(),
    body: {
      name: `strict-${keys}`,
      redirect_uris: ['https://example.com/cb'],
      grant_types: ['authorization_code'],
      scopes: ['read:exceptions'],
      pkce_required: true,
      idempotency_key: key(),
    },
  });
  expect(r.status).toBe(201);
  return r.body.client_id;
}

describe('JSON bodies are validated without type coercion', () => {
  it('refuses an empty-string expires_at on a grant PATCH, and the grant keeps its end', async () => {
    const grant = await call(sandbox(), 'POST', '/v1/users/usr_reviewer/roles', {
      ...admin(),
      body: {
        role_id: 'tenant_viewer',
        expires_at: '2027-01-01T00:00:00Z',
        justification: 'two-week cover',
        idempotency_key: key(),
      },
    });
    expect([grant.status, grant.body.expires_at]).toEqual([201, '2027-01-01T00:00:00Z']);
    const r = await call(sandbox(), 'PATCH', '/v1/users/usr_reviewer/roles/tenant_viewer', {
      ...admin(),
      body: { expires_at: '', justification: 'typo' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.message).toMatch(/^expires_at /);
    const list = await call(
      sandbox(),
      'GET',
      '/v1/role-assignments?user_id=usr_reviewer&role_id=tenant_viewer',
      admin(),
    );
    expect(list.body.items.map((a: { expires_at: string | null }) => a.expires_at)).toEqual([
      '2027-01-01T00:00:00Z',
    ]);
  });

  it('refuses pkce_required null on a client PATCH, and PKCE stays required', async () => {
    const id = await newClient();
    const r = await call(sandbox(), 'PATCH', `/v1/oauth/clients/${id}`, {
      ...admin(),
      body: { pkce_required: null },
    });
    expect([r.status, r.body.error?.message]).toEqual([400, 'pkce_required must be boolean']);
    const after = await call(sandbox(), 'GET', `/v1/oauth/clients/${id}`, admin());
    expect(after.body.pkce_required).toBe(true);
  });

  it.each([
    ['/v1/oauth/clients', { pkce_required: 0 }, 'pkce_required must be boolean'],
    ['/v1/oauth/clients', { pkce_required: 'true' }, 'pkce_required must be boolean'],
    ['/v1/oauth/clients', { token_lifetime_seconds: '600' }, 'token_lifetime_seconds must be integer'],
    ['/v1/roles', { permissions: 'exception.read' }, 'permissions must be array'],
    ['/v1/webhooks', { event_types: 'webhook.test' }, 'event_types must be array'],
    ['/v1/webhooks', { max_attempts: true }, 'max_attempts must be integer'],
  ])('refuses POST %s with %j: %s', async (path, wrong, message) => {
    const bodies: Record<string, Record<string, unknown>> = {
      '/v1/oauth/clients': {
        name: 'typed',
        redirect_uris: ['https://example.com/cb'],
        grant_types: ['authorization_code'],
        scopes: ['read:exceptions'],
      },
      '/v1/roles': { name: 'typed', permissions: ['exception.read'] },
      '/v1/webhooks': { url: 'https://example.com/hook', event_types: ['webhook.test'] },
    };
    const r = await call(sandbox(), 'POST', path, {
      ...admin(),
      body: { ...bodies[path], ...wrong, idempotency_key: key() },
    });
    expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([400, 'invalid_request', message]);
  });

  it('names a null name or permissions as the wrong type, not as a pattern', async () => {
    for (const [field, type] of [
      ['name', 'string'],
      ['permissions', 'array'],
    ]) {
      const r = await call(sandbox(), 'PATCH', '/v1/roles/role_none', {
        ...admin(),
        body: { [field!]: null },
      });
      expect([r.status, r.body.error?.message]).toEqual([400, `${field} must be ${type}`]);
    }
  });

  it('still converts query strings, which are text', async () => {
    const r = await call(sandbox(), 'GET', '/v1/tenants?limit=1', admin());
    expect([r.status, r.body.items.length]).toEqual([200, 1]);
  });
});

describe('JSON bodies are UTF-8', () => {
  const latin1 = (text: string) => Uint8Array.from(Buffer.from(text, 'latin1'));

  it('refuses bytes that are not UTF-8 with 400 naming the byte and its offset, and creates nothing', async () => {
    const r = await call(sandbox(), 'POST', '/v1/accounts', {
      ...admin(),
      text: latin1(`{"name":"caf\u00e9 latin1","idempotency_key":"${key()}"}`),
      headers: { 'content-type': 'application/json' },
    });
    expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([
      400,
      'invalid_request',
      'the body is not UTF-8 (byte 0xE9 at offset 12); send it as UTF-8',
    ]);
    const accounts = await call(sandbox(), 'GET', '/v1/accounts?limit=200', admin());
    expect(accounts.text).not.toContain('latin1');
  });

  it('refuses a body labelled with another charset with 415', async () => {
    const r = await call(sandbox(), 'POST', '/v1/accounts', {
      ...admin(),
      text: latin1(`{"name":"caf\u00e9","idempotency_key":"${key()}"}`),
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
    });
    expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([
      415,
      'unsupported_media_type',
      'the body must be UTF-8 JSON, not charset=iso-8859-1; send it as UTF-8 (charset=utf-8 or none)',
    ]);
  });

  it('takes UTF-8 text, labelled utf-8 or not', async () => {
    for (const type of ['application/json', 'application/json; charset=UTF-8']) {
      const name = `caf\u00e9-${keys}`;
      const r = await call(sandbox(), 'POST', '/v1/accounts', {
        ...admin(),
        text: JSON.stringify({ name, idempotency_key: key() }),
        headers: { 'content-type': type },
      });
      expect([r.status, r.body.name]).toEqual([201, name]);
    }
  });
});

describe('truthful refusals', () => {
  it('refuses a leap second as such, not as a time in the past', async () => {
    const r = await call(sandbox(), 'POST', '/v1/users/usr_ai_prompter/roles', {
      ...admin(),
      body: {
        role_id: 'tenant_viewer',
        expires_at: '2030-06-30T23:59:60Z',
        justification: 'leap',
        idempotency_key: key(),
      },
    });
    expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([
      400,
      'invalid_request',
      'expires_at 2030-06-30T23:59:60Z is a leap second (second 60), which the platform does not take; give 2030-06-30T23:59:59Z or the next second',
    ]);
  });

  // attack22 F7: a since of second 60 read as NaN matched nothing, answered 200 with an empty list.
  it('refuses a leap second in a query time (audit trail, dead-letter queue) as 400, as in a body', async () => {
    const hook = await call(sandbox(), 'POST', '/v1/webhooks', {
      ...admin(),
      body: {
        url: 'https://hooks.example.com/leap',
        event_types: ['exception.created'],
        idempotency_key: key(),
      },
    });
    expect(hook.status).toBe(201);
    const leap = '2016-12-31T23:59:60Z'; // a real one
    for (const [path, field] of [
      ['/v1/audit_trail', 'since'],
      ['/v1/audit_trail', 'until'],
      [`/v1/webhooks/${hook.body.id}/dlq`, 'since'],
      [`/v1/webhooks/${hook.body.id}/dlq`, 'until'],
    ] as const) {
      const r = await call(sandbox(), 'GET', `${path}?${field}=${encodeURIComponent(leap)}`, admin());
      expect([path, r.status, r.body.error]).toMatchObject([
        path,
        400,
        {
          code: 'invalid_request',
          message: `${field} ${leap} is a leap second (second 60), which the platform does not take; give 2016-12-31T23:59:59Z or the next second`,
          details: [{ field, message: 'is a leap second; give second 59 or the next second' }],
        },
      ]);
    }
    // The second before is read, and finds what was written since.
    const r = await call(sandbox(), 'GET', '/v1/audit_trail?since=2016-12-31T23:59:59Z&limit=1', admin());
    expect([r.status, r.body.items.length]).toEqual([200, 1]);
  });

  it('names the 1 MiB limit and the fix in a 413', async () => {
    const text = JSON.stringify({ name: 'a'.repeat(1_100_000), idempotency_key: key() });
    const r = await call(sandbox(), 'POST', '/v1/accounts', {
      ...admin(),
      text,
      headers: { 'content-type': 'application/json' },
    });
    expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([
      413,
      'payload_too_large',
      `the body is larger than 1 MiB (${text.length} bytes); send less per request`,
    ]);
  });
});

describe('conditional requests are refused, never ignored (the platform has no ETags)', () => {
  it.each([
    ['PATCH', 'if-match', '"no-such-etag"'],
    ['PATCH', 'if-match', '*'],
    ['DELETE', 'if-unmodified-since', 'Mon, 01 Jan 2001 00:00:00 GMT'],
    ['DELETE', 'if-none-match', '*'],
    ['GET', 'if-match', '"x"'],
  ])('answers %s with %s: %s 400, and changes nothing', async (method, header, value) => {
    const made = await call(sandbox(), 'POST', '/v1/accounts', {
      ...admin(),
      body: { name: 'conditional', idempotency_key: key() },
    });
    const path = `/v1/accounts/${made.body.id}`;
    const r = await call(sandbox(), method, path, {
      ...admin(),
      ...(method === 'PATCH' ? { body: { name: 'changed' } } : {}),
      headers: { [header]: value },
    });
    const name = header.replace(/(^|-)([a-z])/g, (_m, dash, c) => `${dash}${c.toUpperCase()}`);
    expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([
      400,
      'invalid_request',
      `the ${name} header is not supported: the platform has no ETags or modification dates to check it against; send the request without it`,
    ]);
    const after = await call(sandbox(), 'GET', path, admin());
    expect([after.status, after.body.name, after.body.soft_delete]).toEqual([200, 'conditional', false]);
  });

  it('ignores If-None-Match and If-Modified-Since on a GET (a cache asking; the full answer is right)', async () => {
    const r = await call(sandbox(), 'GET', '/v1/me', { ...admin(), headers: { 'if-none-match': '"x"' } });
    expect(r.status).toBe(200);
  });
});

describe('a form over its limit', () => {
  it('names the 64 KiB limit and the fix, in the RFC 6749 shape', async () => {
    const r = await call(sandbox(), 'POST', '/v1/oauth/token', {
      text: `grant_type=client_credentials&x=${'a'.repeat(70_000)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([r.status, r.body]).toEqual([
      413,
      {
        error: 'invalid_request',
        error_description: 'the body is larger than 64 KiB; send less per request',
      },
    ]);
  });
});
