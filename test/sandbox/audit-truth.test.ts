import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// An audit entry says what a change really did (findings s11 C1, L3): the record's fields whose
// values changed, not the fields a request sent; and no secret a URL carries.
const sandbox = useSandbox();
const TENANT = tenantId('acme-treasury');
let keys = 0;
const admin = () => ({ token: sandbox().adminToken, tenant: TENANT });
const post = (path: string, body: Record<string, unknown>) =>
  call(sandbox(), 'POST', path, { ...admin(), body: { ...body, idempotency_key: `truth-${++keys}` } });
const newest = async (query: string) => {
  const r = await call(sandbox(), 'GET', `/v1/audit_trail?order=desc&limit=1&${query}`, admin());
  expect(r.status, r.text).toBe(200);
  return (r.body as { items: Array<Record<string, any>> }).items[0]!;
};

describe('role.updated', () => {
  it.each([
    [{ description: 'new text', add_permissions: ['exception.read'] }, ['description']],
    [{ name: 'truth-desk', description: 'newer', remove_permissions: ['rule.read'] }, ['description']],
    // The record's field (permissions), never the request's operator (escalate13 F4).
    [{ add_permissions: ['exception.read', 'exception.assign'] }, ['permissions']],
    [{ remove_permissions: ['exception.write', 'rule.read'] }, ['permissions']],
    [{ add_permissions: ['exception.assign'], remove_permissions: ['exception.write'] }, ['permissions']],
    [{ add_permissions: ['exception.read'], remove_permissions: ['exception.write'] }, ['permissions']],
    [{ permissions: ['exception.write', 'exception.read'], name: 'truth-desk-2' }, ['name']],
    [{ permissions: ['exception.read'] }, ['permissions']],
  ])('%j names only what changed: %j', async (body, changes) => {
    const name = `truth-${keys}`;
    const role = (await post('/v1/roles', { name, permissions: ['exception.read', 'exception.write'] })).body;
    const same = 'name' in body && body.name === 'truth-desk' ? { name } : {};
    const r = await call(sandbox(), 'PATCH', `/v1/roles/${role.id}`, {
      ...admin(),
      body: { ...body, ...same },
    });
    expect(r.status, r.text).toBe(200);
    const entry = await newest(`target_id=${role.id}`);
    expect([entry.action, entry.changes]).toEqual(['role.updated', changes]);
    expect(entry.summary).toBe(`custom role ${r.body.name} updated (${changes.join(', ')})`);
  });

  it('records nothing for an update that changes nothing', async () => {
    const role = (await post('/v1/roles', { name: 'truth-same', permissions: ['exception.read'] })).body;
    const body = {
      name: 'truth-same',
      add_permissions: ['exception.read'],
      remove_permissions: ['rule.read'],
    };
    const r = await call(sandbox(), 'PATCH', `/v1/roles/${role.id}`, { ...admin(), body });
    expect(r.status, r.text).toBe(200);
    expect((await newest(`target_id=${role.id}`)).action).toBe('role.created');
  });
});

describe('webhook entries', () => {
  it('mask a secret a URL carries in its query, as --debug does, and keep the rest of it', async () => {
    const url = 'https://hooks.example.com/in?token=s3cr3t-t0ken-abcdef&team=ops';
    const hook = (await post('/v1/webhooks', { url, event_types: ['webhook.test'] })).body;
    expect(hook.url).toBe(url);
    await call(sandbox(), 'DELETE', `/v1/webhooks/${hook.id}`, admin());
    const created = await newest(`action=webhook.created&target_id=${hook.id}`);
    const gone = await newest(`action=webhook.deleted&target_id=${hook.id}`);
    const shown = 'https://hooks.example.com/in?token=[redacted]&team=ops';
    expect(created.summary).toBe(`webhook ${hook.id} created for ${shown} (webhook.test)`);
    expect(gone.summary).toBe(`webhook ${hook.id} (${shown}) deleted`);
    expect(JSON.stringify([created, gone])).not.toContain('s3cr3t');
  });
});

describe('api_key entries', () => {
  // Documented (README, API keys; the api-keys list's description): the trail names every key,
  // the key list only those the caller may manage.
  it('name a service-role key to a reader of the trail from whom the key list withholds it', async () => {
    const key = (
      await post(`/v1/tenants/${TENANT}/api-keys`, {
        kind: 'service_role',
        name: 'payroll-bot',
        justification: 'nightly payroll export',
      })
    ).body;
    const role = (
      await post('/v1/roles', {
        name: 'truth-key-mgr',
        permissions: ['api_key.manage', 'audit_trail.read', 'exception.read'],
      })
    ).body;
    await post('/v1/users/usr_analyst/roles', { role_id: role.id, justification: 'key manager' });
    const manager = { token: sandbox().issueToken('usr_analyst').token, tenant: TENANT };
    const keys = await call(sandbox(), 'GET', `/v1/tenants/${TENANT}/api-keys`, manager);
    expect(keys.body).toMatchObject({ withheld: 1 });
    expect(JSON.stringify(keys.body.items)).not.toContain(key.id);
    const trail = await call(
      sandbox(),
      'GET',
      `/v1/audit_trail?action=api_key.issued&target_id=${key.id}`,
      manager,
    );
    expect(trail.body.items).toEqual([
      expect.objectContaining({
        summary: expect.stringMatching(/^service_role key payroll-bot \(svc_sk_\S+…\) issued$/),
        justification: 'nightly payroll export',
      }),
    ]);
    expect(key.key).toMatch(/^svc_sk_/);
    expect(JSON.stringify(trail.body)).not.toContain(key.key);
  });
});
