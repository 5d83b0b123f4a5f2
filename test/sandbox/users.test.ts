import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandboxContext } from '../helpers/sandbox.js';

// GET /v1/users (issue 14): who may hold roles in a tenant, so `svc plan` checks the users of a
// large grants file in a few requests; and the seeding control for large states.
const svc = useSandboxContext({ users: 250 });
const TENANT = tenantId('acme-treasury');
const WAYNE = tenantId('wayne-clearing');
const admin = () => ({ token: svc.sandbox().adminToken, tenant: TENANT });
const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;

describe('GET /v1/users', () => {
  it("pages through the organisation's users by id, and nobody else's", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const r = await call(svc.sandbox(), 'GET', `/v1/users?${query}`, admin());
      expect(r.status, r.text).toBe(200);
      seen.push(...r.body.items.map((u: { id: string }) => u.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...seen].sort());
    expect(seen).toContain('usr_admin');
    expect(seen).toContain(user(250));
    expect(seen).not.toContain('usr_bruce');
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('looks up many ids at once: the ones that are users of the tenant come back', async () => {
    const r = await call(
      svc.sandbox(),
      'GET',
      `/v1/users?id=${user(7)}&id=usr_nobody&id=usr_bruce&id=usr_viewer&id=${user(7)}`,
      admin(),
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      items: [
        { id: user(7), name: 'Bulk User 000007', email: 'bulk.000007@acme.example' },
        { id: 'usr_viewer', name: 'Viewer User', email: 'viewer@acme.example' },
      ],
      next_cursor: null,
    });
  });

  it('refuses more than 100 ids, and callers without role.read', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `id=${user(i + 1)}`).join('&');
    expect((await call(svc.sandbox(), 'GET', `/v1/users?${many}`, admin())).status).toBe(400);
    const viewer = svc.sandbox().issueToken('usr_viewer').token;
    const r = await call(svc.sandbox(), 'GET', '/v1/users', { token: viewer, tenant: TENANT });
    expect(r.status).toBe(403);
  });

  it('is the platform client users.existing: one request per 100 ids', async () => {
    const platform = await svc.context().ctx.platform();
    const ids = [...Array.from({ length: 230 }, (_, i) => user(i + 1)), 'usr_ghost', 'usr_bruce'];
    const found = await platform.users.existing(ids);
    expect(found.size).toBe(230);
    expect(found.has('usr_ghost')).toBe(false);
    expect(found.has('usr_bruce')).toBe(false);
  });
});

describe('POST /_sandbox/assignments (seeding)', () => {
  it('makes assignments at once, without audit entries, and refuses a pair already held', async () => {
    const sandbox = svc.sandbox();
    const audit = (await call(sandbox, 'GET', `/_sandbox/audit-trail?tenant_id=${TENANT}`)).body.total;
    const items = [user(201), user(202)].map((user_id) => ({ user_id, role_id: 'tenant_viewer' }));
    const made = await call(sandbox, 'POST', '/_sandbox/assignments', { body: { tenant_id: TENANT, items } });
    expect(made.status, made.text).toBe(200);
    expect(made.body).toEqual({ created: 2 });
    const held = await call(sandbox, 'GET', `/v1/role-assignments?user_id=${user(201)}`, admin());
    expect(held.body.items.map((a: { role_id: string }) => a.role_id)).toEqual(['tenant_viewer']);
    expect((await call(sandbox, 'GET', `/_sandbox/audit-trail?tenant_id=${TENANT}`)).body.total).toBe(audit);

    const again = await call(sandbox, 'POST', '/_sandbox/assignments', {
      body: { tenant_id: TENANT, items: [{ user_id: user(203), role_id: 'tenant_viewer' }, items[0]] },
    });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toContain(`${user(201)} already holds tenant_viewer`);
    const other = await call(sandbox, 'POST', '/_sandbox/assignments', {
      body: { tenant_id: WAYNE, items: [{ user_id: user(1), role_id: 'tenant_viewer' }] },
    });
    expect(other.status).toBe(400);
    const none = await call(sandbox, 'GET', `/v1/role-assignments?user_id=${user(203)}`, admin());
    expect(none.body.items).toEqual([]);
  });
});
