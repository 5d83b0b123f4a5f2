/**
 * `svc tenants api-keys get` reads the key from the tenant's list, the platform having no GET of
 * one key: a list served in pages is read to its end, so a key on a later page is found, never
 * "not found" (a server of the API may page where the sandbox does not).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const TENANT = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const key = (id: string) => ({
  id,
  tenant_id: TENANT,
  kind: 'publishable',
  name: id,
  prefix: 'svc_pk_ab12',
  justification: null,
  created_at: '2026-01-01T00:00:00Z',
  created_by: 'usr_a',
  revoked_at: null,
  stopped_reason: null,
});

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(url.pathname === `/v1/tenants/${TENANT}/api-keys` ? 200 : 404, {
      'content-type': 'application/json',
    });
    if (url.pathname !== `/v1/tenants/${TENANT}/api-keys`) {
      res.end(JSON.stringify({ error: { code: 'not_found', message: 'no route', request_id: 'req_1' } }));
      return;
    }
    const later = url.searchParams.get('cursor') === 'c1';
    res.end(
      JSON.stringify({ items: [key(later ? 'key_later' : 'key_first')], next_cursor: later ? null : 'c1' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const dirs = useTempDirs();

describe('svc tenants api-keys get against a paged list', () => {
  it('finds a key on the second page', async () => {
    const r = await runInProcess(['tenants', 'api-keys', 'get', TENANT, 'key_later', '--json'], {
      ...dirs(),
      SVC_BASE_URL: base,
      SVC_TOKEN: 'tok_paging_test_123456',
      SVC_MAX_RETRIES: '0',
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual(key('key_later'));
  });
});
