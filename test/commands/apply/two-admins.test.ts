import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { as, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// Two admins at once (attack28b): another admin changes a role between apply's last check and its
// own write. The order is forced at the proxy (the other admin acts, to completion, before apply's
// request is forwarded); nothing depends on timing.
const svc = useSandboxContext({ users: 20 });
const dir = useTempDir('svc-two-admins-');
const real = { clock: { now: () => Date.now() } };

/** Before forwarding the next `method path`, what the other admin does (once). */
let meanwhile: { method: string; path: string; act: () => Promise<unknown> } | undefined;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: async (method, path) => {
    const other = meanwhile;
    if (!other || method !== other.method || path !== other.path) return;
    meanwhile = undefined;
    await other.act();
  },
});

const roleFile = (slug: string, name: string, permissions: string[]) =>
  `version: 1\nblocks:\n  - tenants: ${slug}\n    roles:\n      - { name: ${name}, permissions: [${permissions.join(', ')}] }\n`;

describe('svc apply: a role another admin changed after the plan was checked', () => {
  it.each([
    ['-f FILE', 'acme-labs', 'fx-ops-f', false],
    ['a saved plan', 'acme-apac', 'fx-ops-p', true],
  ])(
    'from %s: sends only its own change, keeps the other admin’s, and does not say ok',
    async (_how, slug, name, saved) => {
      const tenant = tenantId(slug);
      const env = { SVC_BASE_URL: proxy().url, SVC_TENANT: tenant };
      const role = await as(svc.sandbox(), tenant, 'POST', '/v1/roles', {
        name,
        permissions: ['exception.read', 'exception.write', 'rule.read'],
      });
      const file = writeFile(
        dir,
        `${name}.yaml`,
        roleFile(slug, name, ['exception.read', 'exception.write', 'rule.read', 'exception.assign']),
      );
      let from = ['-f', file];
      if (saved) {
        const plan = join(dir, `${name}.plan.json`);
        const planned = await svc.run(['plan', '-f', file, '--out', plan], { ...real, env });
        expect(planned.code, planned.stderr).toBe(10);
        from = [plan];
      }
      // The other admin takes exception.write away once apply has checked, before its write lands.
      meanwhile = {
        method: 'PATCH',
        path: `/v1/roles/${role.id}`,
        act: () =>
          as(svc.sandbox(), tenant, 'PATCH', `/v1/roles/${role.id}`, {
            remove_permissions: ['exception.write'],
          }),
      };
      const run = await svc.run(['apply', ...from, '--yes', '--ndjson'], { ...real, env });
      expect(meanwhile).toBeUndefined();
      // The other admin's removal stands; apply's own addition is made.
      const after = await as(svc.sandbox(), tenant, 'GET', `/v1/roles/${role.id}`);
      expect([...after.permissions].sort()).toEqual(['exception.assign', 'exception.read', 'rule.read']);
      expect(run.code, run.stderr).toBe(7);
      const row = ndjson(run.stdout).find((r) => r.kind === 'role' && r.name === name);
      expect(row).toMatchObject({
        action: 'update',
        status: 'failed',
        error: { code: 'role_changed_meanwhile' },
      });
      expect(row.error.message).toBe(
        `its change was made, but the role lacks exception.write, which the plan did not set: someone changed it since the plan; see svc --tenant ${slug} roles get ${name}`,
      );
    },
  );
});

describe('svc apply --prune: a grant made after its last check, ended by the delete', () => {
  it('the row says the delete ended a grant the plan did not know, and where to see whose', async () => {
    const slug = 'acme-ledger-uk';
    const tenant = tenantId(slug);
    const env = { SVC_BASE_URL: proxy().url, SVC_TENANT: tenant };
    const role = await as(svc.sandbox(), tenant, 'POST', '/v1/roles', {
      name: 'tmp-del',
      permissions: ['exception.read'],
    });
    const file = writeFile(
      dir,
      'tmp-del.yaml',
      `version: 1\nmanage: {roles: all}\nblocks:\n  - tenants: ${slug}\n    roles: []\n`,
    );
    // The other admin grants the role after apply's check of its holders, before its DELETE lands.
    meanwhile = {
      method: 'DELETE',
      path: `/v1/roles/${role.id}`,
      act: () =>
        as(svc.sandbox(), tenant, 'POST', `/v1/users/${user(5)}/roles`, {
          role_id: role.id,
          justification: 'B needs this',
        }),
    };
    const run = await svc.run(['apply', '-f', file, '--prune', '--yes', '--ndjson'], { ...real, env });
    expect(meanwhile).toBeUndefined();
    expect(run.code, run.stderr).toBe(7);
    const row = ndjson(run.stdout).find((r) => r.kind === 'role' && r.name === 'tmp-del');
    expect(row).toMatchObject({ action: 'delete', status: 'failed', error: { code: 'role_grants_ended' } });
    expect(row.error.message).toBe(
      `deleted, but it ended 1 grant made after svc's last check (1 ended, 0 planned): someone granted the role meanwhile; see whose in svc --tenant ${slug} audit ls --action role.revoked --role ${role.id}, and grant what they need again`,
    );
  });
});
