/**
 * A ✓ line never prints "null" (finding s9 servers 6): a field the OpenAPI document allows to be
 * null (a revocation's audit trail id, a deleted record's purge time, a delivery's HTTP status) is left out of the line
 * when a server sends null, as `roles assign` leaves out what it lacks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../helpers/context.js';

const TENANT = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const revoked = (auditId: string | null) => ({
  user_id: 'usr_x',
  role_id: 'tenant_viewer',
  role_name: 'tenant_viewer',
  tenant_id: TENANT,
  assigned_by: 'usr_admin',
  assigned_at: '2026-01-15T11:00:00Z',
  expires_at: null,
  justification: 't',
  audit_trail_id: 'aud_grant1',
  status: 'revoked',
  revoked_at: '2026-01-15T12:00:00Z',
  revoked_by: 'usr_admin',
  revocation_audit_trail_id: auditId,
  updated_at: null,
  updated_by: null,
  update_audit_trail_id: null,
});
const record = (deleted: boolean, purgeAt: string | null) => ({
  id: 'rec_1',
  surface: 'reconciliations',
  tenant_id: TENANT,
  created_at: '2026-01-15T11:00:00Z',
  updated_at: '2026-01-15T11:00:00Z',
  created_by: 'usr_admin',
  soft_delete: deleted,
  deleted_at: deleted ? '2026-01-15T12:00:00Z' : null,
  purge_at: purgeAt,
});

const delivery = (status: number | null) => ({
  id: 'dlv_1',
  webhook_id: 'wh_1',
  event_type: 'webhook.test',
  event_id: 'evt_1',
  attempt_count: 1,
  max_attempts: 5,
  status: 'delivered',
  last_status_code: status,
  last_error: null,
  last_error_code: null,
  first_attempted_at: '2026-01-15T12:00:00Z',
  last_attempted_at: '2026-01-15T12:00:00Z',
  next_retry_at: null,
  payload_size_bytes: 100,
  created_at: '2026-01-15T12:00:00Z',
  delivered_at: '2026-01-15T12:00:00Z',
  replay_of: null,
  recovered_by: null,
});

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://x');
    const [, nullable, ...rest] = url.pathname.split('/');
    const path = `/${rest.join('/')}`;
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const unset = nullable === 'null';
    if (path === '/v1/roles') {
      return json({
        items: [
          { id: 'tenant_viewer', name: 'tenant_viewer', kind: 'builtin', scope: 'tenant', permissions: [] },
        ],
        next_cursor: null,
      });
    }
    if (req.method === 'DELETE' && path === '/v1/users/usr_x/roles/tenant_viewer') {
      return json(revoked(unset ? null : 'aud_rev1'));
    }
    if (req.method === 'POST' && path === '/v1/webhooks/wh_1/test') {
      return json({
        event: { id: 'evt_1', type: 'webhook.test', created_at: '2026-01-15T12:00:00Z' },
        delivery: delivery(unset ? null : 204),
      });
    }
    if (path === '/v1/reconciliations/rec_1') {
      if (req.method === 'GET') return json(record(false, null));
      return json(record(true, unset ? null : '2026-02-14T12:00:00Z'));
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'not_found', message: `no ${path}`, request_id: 'r' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const dirs = useTempDirs();
const svc = (nullable: 'null' | 'set', argv: string[]) =>
  runInProcess(argv, {
    ...dirs(),
    SVC_BASE_URL: `${base}/${nullable}`,
    SVC_TOKEN: 'tok_nullable_test_123456',
    SVC_TENANT: TENANT,
  });
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

describe('a ✓ line with a field the server sent as null', () => {
  it('roles revoke leaves out the audit trail clause', async () => {
    const argv = ['roles', 'revoke', 'usr_x', 'tenant_viewer', '--yes'];
    const none = await svc('null', argv);
    expect([none.code, lastLine(none.stderr)]).toEqual([
      0,
      '✓ revoked tenant_viewer from usr_x in aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
    ]);
    const some = await svc('set', argv);
    expect([some.code, lastLine(some.stderr)]).toEqual([
      0,
      '✓ revoked tenant_viewer from usr_x in aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee (audit trail aud_rev1)',
    ]);
  });

  it('webhooks test leaves out the HTTP status', async () => {
    const argv = ['webhooks', 'test', 'wh_1'];
    const none = await svc('null', argv);
    expect([none.code, lastLine(none.stderr)]).toEqual([
      0,
      '✓ test event in aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee delivered on attempt 1',
    ]);
    const some = await svc('set', argv);
    expect([some.code, lastLine(some.stderr)]).toEqual([
      0,
      '✓ test event in aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee delivered on attempt 1 (HTTP 204)',
    ]);
  });

  it('records delete leaves out the purge time', async () => {
    const argv = ['records', 'delete', 'reconciliations', 'rec_1', '--yes'];
    const none = await svc('null', argv);
    expect([none.code, lastLine(none.stderr)]).toEqual([
      0,
      '✓ deleted reconciliations record rec_1 in aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee; it is hidden from lists',
    ]);
    const some = await svc('set', argv);
    expect([some.code, lastLine(some.stderr)]).toEqual([
      0,
      '✓ deleted reconciliations record rec_1 in aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee; it is hidden from lists and to be purged at 2026-02-14T12:00:00Z',
    ]);
  });
});
